/**
 * The audit trail's stored state: one record per entry, `audit:<time>:<random>`, the time
 * zero-padded to 15 digits so the names sort by time and a time filter, a page or the pruning can
 * skip entries without reading them. audit-log.ts decides what goes in; this file is the only one
 * that spells these keys.
 */
import { randomBytes } from "node:crypto";
import type { StateBackend } from "../../state/storage/backend.ts";

export type AuditAction =
  | "key.issued"
  | "key.revoked"
  | "key.rerolled"
  | "key.relabelled"
  | "key.expiry_set"
  | "purchase.reserved"
  | "purchase.awaiting_payment"
  | "purchase.charging"
  | "purchase.charged"
  | "purchase.issued"
  | "purchase.released"
  | "purchase.refund_due"
  | "purchase.refunded"
  | "purchase.acknowledged"
  | "purchase.unconfirmed"
  | "payments.configured"
  | "release.published"
  | "release.rolled_back";

export interface AuditEntry {
  id: string;
  at: string;
  /** `admin:<digest prefix of the bearer>`, `cli:<os user>`, `key:<key id>`, `payment:<method>`, `system`. */
  actor: string;
  action: AuditAction;
  /** `key:<id>`, `purchase:<id>`, `method:<id>`, `release:<build id>`. */
  subject: string;
  outcome: string;
  /** The account concerned, when there is one (folded agent id or contact). */
  account: string | null;
  /** Public ids of the keys concerned. */
  key_ids: string[];
  /** Plain facts (amounts, states, the grace period, a release's previous build); never a secret. */
  detail: Record<string, string | number | boolean | null>;
}

export interface AuditStore {
  save(entry: AuditEntry): Promise<void>;
  /** Every entry's id, oldest first. */
  ids(): Promise<string[]>;
  entry(id: string): Promise<AuditEntry | null>;
  remove(id: string): Promise<void>;
}

/** A new entry's id: its time, then a random part, so ids sort by time and never collide. */
export function newAuditId(now: number): string {
  return `${String(now).padStart(15, "0")}:${randomBytes(6).toString("hex")}`;
}

/** The time (epoch ms) an id was made at. */
export function timeOfAuditId(id: string): number {
  return Number(id.slice(0, 15));
}

export function createAuditStore(backend: StateBackend): AuditStore {
  return {
    async save(entry) {
      await backend.records.setItem(PREFIX + entry.id, entry);
    },
    async ids() {
      // Both stores may report keys with their own separators; the id is what follows the prefix.
      return (await backend.records.getKeys(PREFIX))
        .map((k) => k.slice(k.indexOf(PREFIX) + PREFIX.length))
        .filter((id) => /^\d{15}:[0-9a-f]{12}$/.test(id))
        .sort();
    },
    async entry(id) {
      return (await backend.records.getItem<AuditEntry>(PREFIX + id)) ?? null;
    },
    async remove(id) {
      await backend.records.removeItem(PREFIX + id);
    },
  };
}

// --- Internal helpers ---

const PREFIX = "audit:";
