/**
 * Pure window maths for per-key quotas (fixed windows in UTC, injected time), over the table of
 * windows in windows.ts:
 *
 * - hour and day windows deny (429) when full; the day limit is `daily_scale` on the volume plan;
 * - a trial key also has a lifetime window of `trial_calls` (500) that ends with the key;
 * - the monthly window of a membership key only counts: beyond `per_key_monthly` (or the pooled
 *   `volume_monthly_5_keys` of a volume account) calls continue as overage at
 *   `overage_per_call_usd_micros` each. Permanent keys have no monthly reset, so their "month" is
 *   the key's lifetime.
 */

import type { Limits } from "../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { ConsumeResult, CounterWindow, StateBackend } from "../../state/storage/backend.ts";
import { accountPart } from "../../state/storage/key-part.ts";
import { DAY_MS, QUOTA_WINDOWS, type QuotaWindowSpec, type WindowLength, type WindowSlot, windowLimit } from "./windows.ts";

export interface PlannedWindow extends CounterWindow {
  name: string;
  /** The row the counter shares with its owner's other windows (windows.ts). */
  row: string;
  /** Enforced windows deny; the others only count. */
  enforced: boolean;
  /** The quota shown to callers (the limit, or the allowance before overage). */
  quota: number;
  /** Epoch ms the window began, or null when it has no start that moves (a key's lifetime). */
  startedAt: number | null;
  /** Epoch ms of the next reset, or null when the window never resets. */
  resetAt: number | null;
  /** Window length in seconds for RateLimit-Policy `w`, when it has one. */
  seconds: number | null;
  /** Where the key view reports it. */
  slot: WindowSlot;
  /** The counter is shared by the account's keys. */
  pooled: boolean;
}

export function planWindows(
  record: KeyRecord,
  limits: Limits,
  now: number,
  table: readonly QuotaWindowSpec[] = QUOTA_WINDOWS,
): PlannedWindow[] {
  // A shared hash tag keeps all counters of one account (or key) in one Redis Cluster slot.
  const tag = `{${record.account ? "a:" + accountPart(record.account) : "k:" + record.id}}`;
  const windows: PlannedWindow[] = [];
  for (const spec of table) {
    if (!spec.appliesTo(record)) continue;
    const row = `q:${tag}:${spec.owner === "pool" ? "pool" : record.id}`;
    const quota = windowLimit(spec, record, limits);
    const span = _span(spec.length, record, now);
    windows.push({
      name: spec.name,
      key: `${row}:${spec.letter}${span.suffix}`,
      row,
      limit: spec.enforced ? quota : Number.POSITIVE_INFINITY,
      expiresAt: span.expiresAt,
      quota,
      startedAt: span.startedAt,
      resetAt: span.resetAt,
      seconds: span.seconds,
      enforced: spec.enforced,
      slot: spec.slot,
      pooled: spec.owner === "pool",
    });
  }
  return windows;
}

/** The planned windows' counts as of `now`, each read from its row. */
export function readQuotaCounts(backend: StateBackend, windows: readonly PlannedWindow[], now: number): Promise<number[]> {
  return backend.readCounters(
    windows.map((w) => w.key),
    now,
    windows.map((w) => w.row),
  );
}

/** One request against every planned window at once: all count it, or none (a denial). */
export function consumeQuota(backend: StateBackend, windows: PlannedWindow[], now: number): Promise<ConsumeResult> {
  return backend.consume(windows, 1, now);
}

/** The window the key view reports in `slot` (the pooled allowance over the key's own month), or -1. */
export function slotIndex(windows: readonly PlannedWindow[], slot: WindowSlot): number {
  let found = -1;
  windows.forEach((w, i) => {
    if (w.slot === slot) found = i;
  });
  return found;
}

/** Calls beyond the monthly allowance, billed as overage. */
export function overageOf(windows: PlannedWindow[], counts: number[]): number {
  const i = slotIndex(windows, "month");
  if (i === -1) return 0;
  return Math.max(0, counts[i]! - windows[i]!.quota);
}

/** Seconds until `resetAt`, at least 1 so Retry-After never says "now" while still denied. */
export function secondsUntil(resetAt: number | null, now: number): number | null {
  return resetAt === null ? null : Math.max(1, Math.ceil((resetAt - now) / 1000));
}

/**
 * The span of `now` a plan of these windows holds for: from the latest window start to the
 * earliest reset. Outside it at least one window is another counter, so the plan must be made again.
 */
export function planSpan(windows: readonly PlannedWindow[]): { from: number; until: number } {
  let from = Number.NEGATIVE_INFINITY;
  let until = Number.POSITIVE_INFINITY;
  for (const w of windows) {
    if (w.startedAt !== null && w.startedAt > from) from = w.startedAt;
    if (w.resetAt !== null && w.resetAt < until) until = w.resetAt;
  }
  return { from, until };
}

// --- Internal helpers ---

interface Span {
  suffix: string;
  startedAt: number | null;
  resetAt: number | null;
  expiresAt: number;
  seconds: number | null;
}

function _span(length: WindowLength, record: KeyRecord, now: number): Span {
  if (length.kind === "fixed") {
    const n = Math.floor(now / length.ms);
    const start = n * length.ms;
    return { suffix: `:${n}`, startedAt: start, resetAt: start + length.ms, expiresAt: start + length.ms, seconds: length.ms / 1000 };
  }
  if (length.kind === "key-lifetime") {
    // A trial key without an end date ends a day after first use.
    const end = record.expires_at ? Date.parse(record.expires_at) : now + DAY_MS;
    return { suffix: "", startedAt: null, resetAt: null, expiresAt: end, seconds: null };
  }
  if (record.permanent) return { suffix: ":life", startedAt: null, resetAt: null, expiresAt: Number.MAX_SAFE_INTEGER, seconds: null };
  const d = new Date(now);
  const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { suffix: `:${monthStart}`, startedAt: monthStart, resetAt: monthEnd, expiresAt: monthEnd + 40 * DAY_MS, seconds: null };
}
