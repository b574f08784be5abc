/**
 * Key management beyond issue and revoke, one implementation for `vkr keys …` and the admin
 * routes: re-roll a key's secret, edit its label, set its expiry.
 *
 * A re-roll keeps the key's record (its id, counters, account, label) and gives it a new secret:
 * the record moves to the new secret's hash, written first, so the new secret works at once; the
 * old hash keeps an alias entry (`replaced_by`, `replaced_until`) that stands for the record
 * until the grace period the operator chose ends, then is refused with 401 `key_rerolled`
 * (access/credentials.ts). Other instances see both within the key cache's second.
 */
import { apiError } from "../../shared/errors.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { KeysStore } from "../../state/storage/keys-store.ts";
import { type AuditContext, auditKey } from "../audit/audit-log.ts";
import { generateKey, hashKey } from "./key-secret.ts";
import { findKey, type KeyReference } from "./revoke-key.ts";

/** Default and longest grace period of a re-rolled secret. */
export const REROLL_GRACE_DEFAULT_SECONDS = 86_400;
export const REROLL_GRACE_MAX_SECONDS = 30 * 86_400;

export interface RerolledKey {
  /** The new secret, shown once. */
  key: string;
  record: KeyRecord;
  /** Until when the previous secret still works. */
  previousValidUntil: string;
}

/** @example await rerollKey(deps.keys, { id: "3f2a9c01b7de" }, 3600, now, { backend, actor: "cli:ops" }) */
export async function rerollKey(
  keys: KeysStore,
  ref: KeyReference,
  graceSeconds: number,
  now: number,
  audit: AuditContext,
): Promise<RerolledKey> {
  const record = await _found(keys, ref);
  if (record.status === "revoked") throw apiError("conflict", { detail: `Key ${record.id} is revoked; a revoked key is not re-rolled.` });
  const key = generateKey(record.type);
  const at = new Date(now).toISOString();
  const until = new Date(now + graceSeconds * 1000).toISOString();
  const { replaced_by: _by, replaced_until: _until, ...plain } = record;
  const next: KeyRecord = { ...plain, hash: hashKey(key), rerolled_at: at };
  await keys.put(next);
  await keys.put({ ...plain, replaced_by: next.hash, replaced_until: until, rerolled_at: at });
  await auditKey(audit, "key.rerolled", next, now, { grace_seconds: graceSeconds, previous_valid_until: until });
  return { key, record: next, previousValidUntil: until };
}

export interface KeyChanges {
  /** A new label, or null to remove it. */
  label?: string | null;
  /** A new expiry (epoch ms), or null for none. */
  expiresAt?: number | null;
}

/** Applies label and expiry changes to the named key and returns its record. */
export async function updateKey(
  keys: KeysStore,
  ref: KeyReference,
  changes: KeyChanges,
  now: number,
  audit: AuditContext,
): Promise<KeyRecord> {
  const record = await _found(keys, ref);
  const next: KeyRecord = {
    ...record,
    ...(changes.label !== undefined ? { label: changes.label } : {}),
    ...(changes.expiresAt !== undefined
      ? { expires_at: changes.expiresAt === null ? null : new Date(changes.expiresAt).toISOString() }
      : {}),
  };
  await keys.put(next);
  if (changes.label !== undefined) await auditKey(audit, "key.relabelled", next, now, { from: record.label, to: next.label });
  if (changes.expiresAt !== undefined) await auditKey(audit, "key.expiry_set", next, now, { from: record.expires_at, to: next.expires_at });
  return next;
}

/** Reads an expiry as typed by an operator: an ISO date or date-time, or `never`. */
export function parseExpiry(value: string, pointer = "/expires_at"): number | null {
  if (value === "never") return null;
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms))
    throw apiError("validation_failed", {
      errors: [{ pointer, message: "must be an ISO 8601 date or date-time (2027-01-31 or 2027-01-31T12:00:00Z), or never" }],
    });
  return ms;
}

/** Throws 401 `key_rerolled` when `alias` (a re-rolled secret's entry) is past its grace period. */
export function refuseEndedGrace(alias: KeyRecord, now: number): void {
  const until = alias.replaced_until === undefined ? Number.NaN : Date.parse(alias.replaced_until);
  if (!(until > now))
    throw apiError("key_rerolled", {
      detail: `This secret of key ${alias.id} was replaced${alias.rerolled_at ? ` at ${alias.rerolled_at}` : ""}; its grace period ended ${alias.replaced_until ?? ""}.`,
    });
}

// --- Internal helpers ---

async function _found(keys: KeysStore, ref: KeyReference): Promise<KeyRecord> {
  const record = await findKey(keys, ref);
  if (!record) throw apiError("key_not_found");
  return record;
}
