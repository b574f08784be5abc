/**
 * One trial per agent and vertical: an insert-once slot, `trial:<vertical>:<agent>`, holding the
 * trial key's hash until the trial ends (keys/issue-keys.ts decides when to take one over).
 */
import type { InsertOnceResult, StateBackend } from "./backend.ts";
import { keyPart } from "./key-part.ts";

/** First claimer wins; `value` is the hash of the key holding the slot. */
export function claimTrialSlot(
  backend: StateBackend,
  slot: { vertical: string; agentId: string },
  hash: string,
  expiresAt: number,
  now: number,
): Promise<InsertOnceResult> {
  return backend.insertOnce(_slotKey(slot), hash, expiresAt, now);
}

/** Frees the slot only while `heldBy` still holds it (a claim whose key never came to exist). */
export async function releaseTrialSlot(backend: StateBackend, slot: { vertical: string; agentId: string }, heldBy: string): Promise<void> {
  await backend.removeOnce(_slotKey(slot), heldBy);
}

// --- Internal helpers ---

function _slotKey(slot: { vertical: string; agentId: string }): string {
  return `trial:${slot.vertical}:${keyPart(slot.agentId)}`;
}
