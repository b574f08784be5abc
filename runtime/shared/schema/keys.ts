/**
 * Service key formats and the stored key record. A key is shown in full once, at creation; the
 * store keeps only its SHA-256 (keys carry ≥128 bits of randomness, so no salt is needed).
 */
import { type Static, Type } from "@sinclair/typebox";
import { CohortNameSchema } from "./catalog.ts";

export const LIVE_KEY_PREFIX = "svc_live_";
export const TRIAL_KEY_PREFIX = "svc_trial_";
/** 22 base62 characters = 131 bits of randomness. */
export const KEY_SECRET_LENGTH = 22;
export const KEY_RE = /^svc_(live|trial)_[0-9A-Za-z]{22}$/;

export const KeyTypeSchema = Type.Union([Type.Literal("membership"), Type.Literal("trial")]);
export type KeyType = Static<typeof KeyTypeSchema>;

export const KeyRecordSchema = Type.Object({
  /** Public id: the first 12 hex characters of the key's hash. Safe to show and log. */
  id: Type.String(),
  hash: Type.String(),
  type: KeyTypeSchema,
  /** Canonical vertical slug, or `all`. */
  vertical: Type.String(),
  cohort: CohortNameSchema,
  plan: Type.Union([Type.Literal("standard"), Type.Literal("volume")]),
  label: Type.Union([Type.String(), Type.Null()]),
  agent_id: Type.Union([Type.String(), Type.Null()]),
  /** The account that holds the key (agent_id or contact); at most 5 keys per account. */
  account: Type.Union([Type.String(), Type.Null()]),
  permanent: Type.Boolean(),
  status: Type.Union([Type.Literal("active"), Type.Literal("revoked")]),
  source: Type.Union([Type.Literal("admin"), Type.Literal("trial"), Type.Literal("checkout")]),
  created_at: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
  /**
   * Set on the entry a re-rolled secret leaves behind (keys/manage-key.ts): the hash of the
   * secret that replaced it, and until when the old secret still works (then 401 `key_rerolled`).
   * Such an entry is an alias, never listed; the record is the one at `replaced_by`.
   */
  replaced_by: Type.Optional(Type.String()),
  replaced_until: Type.Optional(Type.String()),
  /** When the key's secret was last re-rolled. */
  rerolled_at: Type.Optional(Type.String()),
});
export type KeyRecord = Static<typeof KeyRecordSchema>;

/** Classifies a presented key string by shape only, before any lookup. */
export function parseKeyString(value: string): KeyType | null {
  if (!KEY_RE.test(value)) return null;
  return value.startsWith(LIVE_KEY_PREFIX) ? "membership" : "trial";
}
