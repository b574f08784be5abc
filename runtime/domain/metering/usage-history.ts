/**
 * The per-key daily usage history (`usage_history` in GET /api/keys, `vkr keys usage`), kept for
 * USAGE_HISTORY_DAYS days, derived from what the meter already writes: nothing on the metered path.
 *
 * Every metered call already counts in its key's day window (windows.ts), a counter named for its
 * UTC day, and both stores keep an expired counter readable as of an earlier time for a day after
 * it expired (`EXPIRED_COUNTER_KEPT_MS`). So:
 * - today's count is the live day counter, and yesterday's is its finished day counter (exact:
 *   nothing counts into a day once it is over);
 * - once a day, a fold copies every key's finished day counter into the key's history record
 *   (`usage:<key id>`), before the store forgets it. A folded day is final, so the fold only sets
 *   values: a second instance folding the same day writes the same record. A durable cursor
 *   (`usage-fold:through`) says which day was folded last, and an insert-once claim per day keeps
 *   other instances from doing the same work at once.
 *
 * A day the fold missed (no instance ran during the whole day after it) is lost and logged. The
 * earlier attempt wrote a daily bucket into the counter rows on every metered read and made quota
 * checks 3–5× slower (docs/performance-history.md).
 */

import type { Logger } from "../../shared/logger.ts";
import type { KeyUsage } from "../../shared/schema/admin-keys.ts";
import type { Limits } from "../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { StateBackend } from "../../state/storage/backend.ts";
import type { KeysStore } from "../../state/storage/keys-store.ts";
import { planWindows } from "./quota.ts";
import { DAY_MS } from "./windows.ts";

/** Days of history kept, today included. */
export const USAGE_HISTORY_DAYS = 90;

/** How often an instance checks whether yesterday is folded. */
export const USAGE_FOLD_INTERVAL_MS = 10 * 60_000;

export interface UsageDay {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  /** Metered calls of the key admitted that day. */
  requests: number;
}

/** The stored history of one key: `[day number since the epoch, calls]`, oldest first. */
interface UsageRecord {
  days: Array<[number, number]>;
}

const CURSOR = "usage-fold:through";
/** A fold of one day is claimed this long; a claimer that died is taken over after it. */
const CLAIM_MS = 15 * 60_000;
/** Counters read per store call while folding. */
const READ_CHUNK = 500;

/**
 * The key's calls per UTC day over the last USAGE_HISTORY_DAYS days, oldest first; days without a
 * call are left out.
 */
export async function readUsageHistory(backend: StateBackend, limits: Limits, record: KeyRecord, now: number): Promise<UsageDay[]> {
  const today = Math.floor(now / DAY_MS);
  const first = today - USAGE_HISTORY_DAYS + 1;
  const yesterday = _dayCounter(record, limits, today - 1);
  const current = _dayCounter(record, limits, today);
  const [stored, [late], [live]] = await Promise.all([
    backend.records.getItem<UsageRecord>(_recordKey(record.id)),
    backend.readCounters([yesterday.key], _lastMs(today - 1), [yesterday.row]),
    backend.readCounters([current.key], now, [current.row]),
  ]);
  const days = new Map<number, number>();
  for (const [day, n] of stored?.days ?? []) if (day >= first && day < today) days.set(day, n);
  // Yesterday is read live until the store forgets it, so it shows before (and whether or not) it is folded.
  if (late! > (days.get(today - 1) ?? 0)) days.set(today - 1, late!);
  if (live! > 0) days.set(today, live!);
  return [...days]
    .filter(([, n]) => n > 0)
    .sort((a, b) => a[0] - b[0])
    .map(([day, requests]) => ({ date: _date(day), requests }));
}

/** The history with its span and total, as the admin route and `vkr keys usage --json` answer it. */
export async function describeKeyUsage(backend: StateBackend, limits: Limits, record: KeyRecord, now: number): Promise<KeyUsage> {
  const history = await readUsageHistory(backend, limits, record, now);
  return { id: record.id, days: USAGE_HISTORY_DAYS, total: history.reduce((sum, d) => sum + d.requests, 0), usage_history: history };
}

export interface FoldResult {
  /** The day folded by this call, or null when there was nothing to do (already folded, or claimed by another instance). */
  day: string | null;
  /** Keys with calls that day, whose history was written. */
  keys: number;
}

/**
 * Folds yesterday's day counters into the keys' history records, once per day across instances.
 * Called at start and every USAGE_FOLD_INTERVAL_MS (start.ts), and by tests with their clock.
 */
export async function foldUsageHistory(
  deps: { backend: StateBackend; keys: KeysStore; logger?: Logger },
  limits: Limits,
  now: number,
): Promise<FoldResult> {
  const { backend, keys, logger } = deps;
  const day = Math.floor(now / DAY_MS) - 1;
  const cursor = await backend.records.getItem<{ day: number }>(CURSOR);
  if (cursor !== null && cursor.day >= day) return { day: null, keys: 0 };
  const token = `${process.pid}:${now}:${Math.random()}`;
  const claim = await backend.insertOnce(`usage-fold:${day}`, token, now + CLAIM_MS, now);
  if (!claim.created) return { day: null, keys: 0 };
  if (cursor !== null && cursor.day < day - 1)
    logger?.warn("usage history: days not folded in time are missing", { from: _date(cursor.day + 1), to: _date(day - 1) });
  let written = 0;
  // A page at a time, with requests let in between: a million keys listed at once held 770 MB and,
  // the embedded store answering at once, kept the event loop from anything else until done.
  for await (const chunk of keys.pages(READ_CHUNK)) {
    await new Promise((resolve) => setImmediate(resolve));
    const counters = chunk.map((r) => _dayCounter(r, limits, day));
    const counts = await backend.readCounters(
      counters.map((c) => c.key),
      _lastMs(day),
      counters.map((c) => c.row),
    );
    for (let j = 0; j < chunk.length; j++) {
      if (counts[j]! === 0) continue;
      await _setDay(backend, chunk[j]!.id, day, counts[j]!);
      written++;
    }
  }
  await backend.records.setItem(CURSOR, { day });
  return { day: _date(day), keys: written };
}

// --- Internal helpers ---

/** The day window's counter of `record` on `day`: the same key and row the meter counted in. */
function _dayCounter(record: KeyRecord, limits: Limits, day: number): { key: string; row: string } {
  const window = planWindows(record, limits, day * DAY_MS).find((w) => w.slot === "day")!;
  return { key: window.key, row: window.row };
}

/** The last millisecond of `day`: its day counter has not expired yet as of then. */
function _lastMs(day: number): number {
  return (day + 1) * DAY_MS - 1;
}

function _date(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function _recordKey(id: string): string {
  return `usage:${id}`;
}

/** Sets `day` in the key's history and drops what is older than the retention. */
async function _setDay(backend: StateBackend, id: string, day: number, requests: number): Promise<void> {
  const key = _recordKey(id);
  const stored = await backend.records.getItem<UsageRecord>(key);
  const first = day - USAGE_HISTORY_DAYS + 1;
  const days = (stored?.days ?? []).filter(([d]) => d >= first && d !== day);
  days.push([day, requests]);
  days.sort((a, b) => a[0] - b[0]);
  await backend.records.setItem(key, { days } satisfies UsageRecord);
}
