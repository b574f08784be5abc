/**
 * Pure window maths for per-key quotas (fixed calendar windows in UTC, injected time).
 *
 * - hour and day windows deny (429) when full; the day limit is `daily_scale` on the volume plan;
 * - a trial key also has a lifetime window of `trial_calls` (500) that ends with the key;
 * - the monthly window of a membership key only counts: beyond `per_key_monthly` (or the pooled
 *   `volume_monthly_5_keys` of a volume account) calls continue as overage at
 *   `overage_per_call_usd_micros` each. Permanent keys have no monthly reset, so their "month" is
 *   the key's lifetime.
 */
import type { CounterWindow } from "../storage/backend.ts";
import type { KeyRecord } from "../schema/keys.ts";
import type { Limits } from "../schema/catalog.ts";

export type WindowName = "hour" | "day" | "month" | "pool" | "trial";

export interface PlannedWindow extends CounterWindow {
  name: WindowName;
  /** Enforced windows deny; the others only count. */
  enforced: boolean;
  /** The quota shown to callers (the limit, or the allowance before overage). */
  quota: number;
  /** Epoch ms of the next reset, or null when the window never resets. */
  resetAt: number | null;
  /** Window length in seconds for RateLimit-Policy `w`, when it has one. */
  seconds: number | null;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

export function planWindows(record: KeyRecord, limits: Limits, now: number): PlannedWindow[] {
  // A shared hash tag keeps all counters of one account (or key) in one Redis Cluster slot.
  const tag = `{${record.account ? "a:" + _hex(record.account) : "k:" + record.id}}`;
  const d = new Date(now);
  const hourStart = Math.floor(now / HOUR) * HOUR;
  const dayStart = Math.floor(now / DAY) * DAY;
  const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  const dailyLimit = record.plan === "volume" ? limits.daily_scale : limits.daily_standard;

  const windows: PlannedWindow[] = [
    _w("hour", `q:${tag}:${record.id}:h:${hourStart / HOUR}`, limits.hourly_rate_limit, hourStart + HOUR, 3600, true),
    _w("day", `q:${tag}:${record.id}:d:${dayStart / DAY}`, dailyLimit, dayStart + DAY, 86400, true),
  ];
  if (record.type === "trial") {
    const end = record.expires_at ? Date.parse(record.expires_at) : now + DAY;
    windows.push({ ..._w("trial", `q:${tag}:${record.id}:t`, limits.trial_calls, end, null, true), resetAt: null });
    return windows;
  }
  const monthKey = record.permanent ? "life" : String(monthStart);
  const monthExpiry = record.permanent ? Number.MAX_SAFE_INTEGER : monthEnd + 40 * DAY;
  windows.push({
    ..._w("month", `q:${tag}:${record.id}:m:${monthKey}`, limits.per_key_monthly, monthExpiry, null, false),
    resetAt: record.permanent ? null : monthEnd,
  });
  if (record.plan === "volume" && record.account) {
    windows.push({
      ..._w("pool", `q:${tag}:pool:m:${monthKey}`, limits.volume_monthly_5_keys, monthExpiry, null, false),
      resetAt: record.permanent ? null : monthEnd,
    });
  }
  return windows;
}

/** Calls beyond the monthly allowance, billed as overage. */
export function overageOf(windows: PlannedWindow[], counts: number[]): number {
  const i = windows.findIndex((w) => w.name === (windows.some((x) => x.name === "pool") ? "pool" : "month"));
  if (i === -1) return 0;
  return Math.max(0, counts[i]! - windows[i]!.quota);
}

/** Seconds until `resetAt`, at least 1 so Retry-After never says "now" while still denied. */
export function secondsUntil(resetAt: number | null, now: number): number | null {
  return resetAt === null ? null : Math.max(1, Math.ceil((resetAt - now) / 1000));
}

// --- Internal helpers ---

function _w(name: WindowName, key: string, quota: number, resetAt: number, seconds: number | null, enforced: boolean): PlannedWindow {
  return { name, key, limit: enforced ? quota : Number.POSITIVE_INFINITY, expiresAt: resetAt, quota, resetAt, seconds, enforced };
}

function _hex(value: string): string {
  return Buffer.from(value.toLowerCase(), "utf8").toString("hex");
}
