/**
 * The membership keys an account may hold, as numbered slots 1..cap. Each slot is one insert-once
 * entry (`acctslot:<account>:<n>` → the id of the purchase or issuance holding it), so:
 * - a slot is taken by exactly one holder, on one instance or many (insert-once is atomic);
 * - the slot number is the key's position in the account, which sets its graduated price, so the
 *   price tier is reserved together with the slot, before any payment;
 * - a holder can find and release exactly its own slots (compare-and-delete), any number of
 *   times, without ever freeing another holder's;
 * - slot 1 is the account itself: the purchase that takes it creates the account, and a second
 *   creator racing for the same name finds it taken.
 *
 * Accounts from before slots existed kept a plain counter of keys issued (`acctcap:<account>`);
 * its value marks slots 1..n as taken. It never changes again, so reading it is race-free.
 */
import type { StateBackend } from "../../state/storage/backend.ts";
import { accountPart } from "../../state/storage/key-part.ts";

export type SlotReservation = { ok: true; positions: number[] } | { ok: false; reason: "account_exists" | "cap_reached"; held: number };

export interface ReserveSlotsInput {
  account: string;
  quantity: number;
  cap: number;
  /** The purchase or issuance id written into each slot. */
  holder: string;
  /** Only create the account: refused with `account_exists` when slot 1 is held by anyone else. */
  create: boolean;
  now: number;
}

/**
 * Takes the lowest free slots for `holder`, all of them or none. Re-running it for the same
 * holder (a retry after a crash) finds the slots it already holds instead of taking more.
 */
export async function reserveSlots(backend: StateBackend, input: ReserveSlotsInput): Promise<SlotReservation> {
  const legacy = await _legacyCount(backend, input.account);
  if (input.create && legacy > 0) return { ok: false, reason: "account_exists", held: legacy };
  const positions: number[] = [];
  let heldByOthers = legacy;
  for (let position = legacy + 1; position <= input.cap && positions.length < input.quantity; position++) {
    const slot = await backend.insertOnce(slotKey(input.account, position), input.holder, null, input.now);
    if (slot.created || slot.value === input.holder) positions.push(position);
    else if (input.create && position === 1) return { ok: false, reason: "account_exists", held: 1 };
    else heldByOthers++;
  }
  if (positions.length === input.quantity) return { ok: true, positions };
  await releaseSlots(backend, input.account, positions, input.holder);
  return { ok: false, reason: "cap_reached", held: heldByOthers };
}

/** Frees the slots `holder` holds; slots held by anyone else are left alone. */
export async function releaseSlots(backend: StateBackend, account: string, positions: readonly number[], holder: string): Promise<void> {
  for (const position of positions) await backend.removeOnce(slotKey(account, position), holder);
}

export function slotKey(account: string, position: number): string {
  return `acctslot:${accountPart(account)}:${position}`;
}

// --- Internal helpers ---

async function _legacyCount(backend: StateBackend, account: string): Promise<number> {
  const [count] = await backend.readCounters([`acctcap:${accountPart(account)}`], 0);
  return count ?? 0;
}
