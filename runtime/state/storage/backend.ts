/**
 * The state backend contract. Plain records go through unstorage (`records`); everything that
 * must be exact under concurrency (quota windows, positions, first-writer-wins inserts, ledgers)
 * goes through the atomic primitives below, which each backend implements with its own engine:
 * one SQLite transaction (embedded) or one Lua script (Redis).
 */
import type { Storage } from "unstorage";

/**
 * How long a counter stays readable after its expiry, as of a time before it (`readCounters` with
 * such a `now`): both stores keep it that long anyway (SQLite forgets a cell a day after its
 * expiry, Redis collects a key a day after it), and the per-key usage history reads a finished
 * day's counter then, instead of the meter writing anything more (metering/usage-history.ts).
 */
export const EXPIRED_COUNTER_KEPT_MS = 86_400_000;

export interface CounterWindow {
  key: string;
  /** Admission fails if count + cost would exceed this. Use Infinity for count-only windows. */
  limit: number;
  /** Epoch ms when the window's counter may be forgotten. */
  expiresAt: number;
  /**
   * The row the counter is stored in with its owner's other counters (a prefix of `key`: the quota
   * windows of one key, metering/windows.ts), so the embedded store writes one row for them all;
   * absent, a row of its own. Stores without rows ignore it.
   */
  row?: string;
}

export interface ConsumeResult {
  admitted: boolean;
  /** Counts after the increment when admitted; the unchanged counts when denied. */
  counts: number[];
  /** Index of the first window that denied, or -1. */
  deniedIndex: number;
}

export interface InsertOnceResult {
  created: boolean;
  /** The value now stored: ours if created, the earlier writer's otherwise. */
  value: string;
}

export interface StateBackend {
  readonly kind: "sqlite" | "redis";
  readonly records: Storage;
  /** Checks every window, then increments all of them, or none: a denied request consumes nothing. */
  consume(windows: CounterWindow[], cost: number, now: number): Promise<ConsumeResult>;
  /**
   * Counts as of `now`: a counter that expired by then reads 0. `now` may lie in the past: a
   * counter is readable as of a time before its expiry for EXPIRED_COUNTER_KEPT_MS after it.
   * `rows[i]`: the row of `keys[i]` when it shares one (as `CounterWindow.row`); absent, its own.
   */
  readCounters(keys: string[], now: number, rows?: ReadonlyArray<string | undefined>): Promise<number[]>;
  /** First writer wins; an expired entry counts as absent. */
  insertOnce(key: string, value: string, expiresAt: number | null, now: number): Promise<InsertOnceResult>;
  /**
   * Deletes an insert-once entry; with `ifValue`, only while it still holds that value (compare
   * and delete), so a holder that lost its entry can never remove the next holder's. True when
   * something was deleted.
   */
  removeOnce(key: string, ifValue?: string): Promise<boolean>;
  /** Appends `member` to `list` once and returns its 1-based position, stable on repeats. */
  claimPosition(list: string, member: string): Promise<{ position: number; created: boolean }>;
  countList(list: string): Promise<number>;
  /**
   * The names of the records under `prefix` (those `records.getKeys(prefix)` lists), at most
   * `pageSize` at a time, each name once: a pass over every key (the daily usage fold) holds one
   * page, not a million names. SQLite reads each page from its index; Redis lists the names in one
   * pass of its driver, as `getKeys` does, and hands them out in pages.
   */
  recordPages(prefix: string, pageSize: number): AsyncIterable<string[]>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
