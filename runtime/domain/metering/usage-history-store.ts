/**
 * The usage history's stored state: each key's folded days, `usage:<key id>`, and the fold's own
 * bookkeeping: the cursor `usage-fold:through` (the last day folded) and the insert-once claim of
 * one day's fold, `usage-fold:<day>`. usage-history.ts decides; this file is the only one that spells
 * these keys (the day counters it folds are the quota windows', read through quota.ts).
 */
import type { StateBackend } from "../../state/storage/backend.ts";

/** One folded day: `[day number since the epoch, calls]`. */
export type UsageDayCount = [number, number];

export interface UsageHistoryStore {
  /** The key's folded days as stored (empty when none). */
  days(keyId: string): Promise<UsageDayCount[]>;
  saveDays(keyId: string, days: UsageDayCount[]): Promise<void>;
  /** The last day folded, or null before the first fold. */
  foldedThrough(): Promise<number | null>;
  markFolded(day: number): Promise<void>;
  /** Claims the fold of `day` for `token` until `until`; false while another claim holds it. */
  claimFold(day: number, token: string, until: number, now: number): Promise<boolean>;
}

export function createUsageHistoryStore(backend: StateBackend): UsageHistoryStore {
  return {
    async days(keyId) {
      return (await backend.records.getItem<UsageRecord>(_recordKey(keyId)))?.days ?? [];
    },
    async saveDays(keyId, days) {
      await backend.records.setItem(_recordKey(keyId), { days } satisfies UsageRecord);
    },
    async foldedThrough() {
      return (await backend.records.getItem<{ day: number }>(CURSOR))?.day ?? null;
    },
    async markFolded(day) {
      await backend.records.setItem(CURSOR, { day });
    },
    async claimFold(day, token, until, now) {
      return (await backend.insertOnce(`usage-fold:${day}`, token, until, now)).created;
    },
  };
}

// --- Internal helpers ---

/** The stored history of one key, oldest first. */
interface UsageRecord {
  days: UsageDayCount[];
}

const CURSOR = "usage-fold:through";

function _recordKey(id: string): string {
  return `usage:${id}`;
}
