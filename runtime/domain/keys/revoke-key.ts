/**
 * Finding and revoking keys: one implementation for the operator CLI (`vkr keys revoke`) and the
 * admin route (`POST /api/admin/keys/revoke`). A key is found by its full secret or its public id
 * (the first 12 hex characters of its hash). Revocation is final: status `revoked`, `revoked_at`
 * set, the record kept for audit. Other instances see it within the key cache's lifetime (1 s).
 */
import { apiError } from "../../shared/errors.ts";
import { type KeyRecord, parseKeyString } from "../../shared/schema/keys.ts";
import type { KeysStore } from "../../state/storage/keys-store.ts";
import { type AuditContext, auditKey } from "../audit/audit-log.ts";
import { hashKey } from "./key-secret.ts";

/** A full key (`svc_live_…`/`svc_trial_…`) or a public key id (12 lower-case hex characters). */
export type KeyReference = { key: string } | { id: string };

export const KEY_ID_RE = /^[0-9a-f]{12}$/;

/**
 * The record a reference names, or null; never throws for a well-formed reference. A re-rolled
 * secret names its key's record (keys/manage-key.ts), whether or not its grace period is over.
 */
export async function findKey(keys: KeysStore, ref: KeyReference): Promise<KeyRecord | null> {
  if ("key" in ref) return parseKeyString(ref.key) ? currentRecord(keys, await keys.get(hashKey(ref.key))) : null;
  if (!KEY_ID_RE.test(ref.id)) return null;
  const all = await keys.list({});
  return all.find((r) => r.id === ref.id) ?? null;
}

/**
 * Revokes the named key and returns its updated record; revoking a revoked key returns it
 * unchanged (idempotent, `revoked_at` keeps the first revocation).
 * @example await revokeKey(deps.keys, { id: "3f2a9c01b7de" }, deps.clock.now(), { backend, actor: "cli:ops" })
 */
export async function revokeKey(keys: KeysStore, ref: KeyReference, now: number, audit: AuditContext): Promise<KeyRecord> {
  const record = await findKey(keys, ref);
  if (!record) throw apiError("key_not_found");
  if (record.status === "revoked") return record;
  const revoked: KeyRecord = { ...record, status: "revoked", revoked_at: new Date(now).toISOString() };
  await keys.put(revoked);
  await auditKey(audit, "key.revoked", revoked, now);
  return revoked;
}

/** The key record an entry stands for: itself, or, for a re-rolled secret's entry, the record it was replaced by. */
export async function currentRecord(keys: KeysStore, record: KeyRecord | null): Promise<KeyRecord | null> {
  // A chain of re-rolls is followed to its end (bounded, against a corrupted cycle).
  for (let hops = 0; record?.replaced_by !== undefined && hops < 100; hops++) record = await keys.get(record.replaced_by);
  return record?.replaced_by === undefined ? record : null;
}

/** Reads a CLI or request argument as a reference: a full key, else a key id. */
export function toKeyReference(value: string): KeyReference {
  return parseKeyString(value) ? { key: value } : { id: value.toLowerCase() };
}
