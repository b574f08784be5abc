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
import { type PlannedWindow, planWindows, readQuotaCounts } from "./quota.ts";
import { createUsageHistoryStore, type UsageHistoryStore } from "./usage-history-store.ts";
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
    createUsageHistoryStore(backend).days(record.id),
    readQuotaCounts(backend, [yesterday], _lastMs(today - 1)),
    readQuotaCounts(backend, [current], now),
  ]);
  const days = new Map<number, number>();
  for (const [day, n] of stored) if (day >= first && day < today) days.set(day, n);
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
  const store = createUsageHistoryStore(backend);
  const day = Math.floor(now / DAY_MS) - 1;
  const through = await store.foldedThrough();
  if (through !== null && through >= day) return { day: null, keys: 0 };
  const token = `${process.pid}:${now}:${Math.random()}`;
  if (!(await store.claimFold(day, token, now + CLAIM_MS, now))) return { day: null, keys: 0 };
  if (through !== null && through < day - 1)
    logger?.warn("usage history: days not folded in time are missing", { from: _date(through + 1), to: _date(day - 1) });
  let written = 0;
  // A page at a time, with requests let in between: a million keys listed at once held 770 MB and,
  // the embedded store answering at once, kept the event loop from anything else until done.
  for await (const chunk of keys.pages(READ_CHUNK)) {
    await new Promise((resolve) => setImmediate(resolve));
    const counters = chunk.map((r) => _dayCounter(r, limits, day));
    const counts = await readQuotaCounts(backend, counters, _lastMs(day));
    for (let j = 0; j < chunk.length; j++) {
      if (counts[j]! === 0) continue;
      await _setDay(store, chunk[j]!.id, day, counts[j]!);
      written++;
    }
  }
  await store.markFolded(day);
  return { day: _date(day), keys: written };
}

// --- Internal helpers ---

/** The day window of `record` on `day`: the same counter, in the same row, the meter counted in. */
function _dayCounter(record: KeyRecord, limits: Limits, day: number): PlannedWindow {
  return planWindows(record, limits, day * DAY_MS).find((w) => w.slot === "day")!;
}

/** The last millisecond of `day`: its day counter has not expired yet as of then. */
function _lastMs(day: number): number {
  return (day + 1) * DAY_MS - 1;
}

function _date(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Sets `day` in the key's history and drops what is older than the retention. */
async function _setDay(store: UsageHistoryStore, id: string, day: number, requests: number): Promise<void> {
  const first = day - USAGE_HISTORY_DAYS + 1;
  const days = (await store.days(id)).filter(([d]) => d >= first && d !== day);
  days.push([day, requests]);
  days.sort((a, b) => a[0] - b[0]);
  await store.saveDays(id, days);
}
