/**
 * The quota windows of a key, declared once. Everything that knows about windows is derived from
 * this table: the plan of a metered request (`planWindows` in quota.ts, and how long `meter.ts`
 * may reuse it), the key view (`keys/key-view.ts`), `RateLimit-Policy`, the limits
 * `RETRIEVAL_LIMITS` may override (`config.ts`) and the store row a counter lives in.
 *
 * A counter's key is `<row>:<suffix>`, where the row is `q:{<tag>}:<owner>` (the key's id, or
 * `pool` for an account's shared allowance): every window of one owner shares a row, so the
 * embedded store writes one row per metered request, and the hash tag keeps one account's
 * counters in one Redis Cluster slot. These key shapes are stored state: a new window needs a new
 * `letter`, never a changed one.
 */

import type { Limits } from "../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";

/** The catalogue limits a window may take its size from. */
export type WindowLimitField =
  | "hourly_rate_limit"
  | "daily_standard"
  | "daily_scale"
  | "per_key_monthly"
  | "volume_monthly_5_keys"
  | "trial_calls";

/** How long a window lasts: a fixed length (aligned to the epoch, UTC), the calendar month, or the key's life. */
export type WindowLength = { kind: "fixed"; ms: number } | { kind: "month" } | { kind: "key-lifetime" };

/** Where the key view (GET /api/keys, verify) reports a window. */
export type WindowSlot = "hour" | "day" | "month" | "trial";

export interface QuotaWindowSpec {
  name: string;
  /** The catalogue field holding its size; by the key's plan when it depends on it. */
  limit: WindowLimitField | { standard: WindowLimitField; volume: WindowLimitField };
  /** RETRIEVAL_LIMITS may override its size (benchmarks, special deployments). */
  overridable: boolean;
  length: WindowLength;
  /** Which keys it applies to. */
  appliesTo: (record: KeyRecord) => boolean;
  /** Enforced windows deny (429) when full; the others only count (overage beyond the allowance). */
  enforced: boolean;
  /** Whose counter: the key's own, or the pool its account's keys share. */
  owner: "key" | "pool";
  /** The counter key's suffix letter (stored state: never reused). */
  letter: string;
  /** Its slot in the key view; a later window in the same slot (the pool) wins over an earlier one (the key's month). */
  slot: WindowSlot;
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export const QUOTA_WINDOWS: readonly QuotaWindowSpec[] = Object.freeze([
  {
    name: "hour",
    limit: "hourly_rate_limit",
    overridable: true,
    length: { kind: "fixed", ms: HOUR_MS },
    appliesTo: () => true,
    enforced: true,
    owner: "key",
    letter: "h",
    slot: "hour",
  },
  {
    name: "day",
    limit: { standard: "daily_standard", volume: "daily_scale" },
    overridable: true,
    length: { kind: "fixed", ms: DAY_MS },
    appliesTo: () => true,
    enforced: true,
    owner: "key",
    letter: "d",
    slot: "day",
  },
  // A trial key's lifetime allowance, which ends with the key (or a day after first use without an end date).
  {
    name: "trial",
    limit: "trial_calls",
    overridable: false,
    length: { kind: "key-lifetime" },
    appliesTo: (r) => r.type === "trial",
    enforced: true,
    owner: "key",
    letter: "t",
    slot: "trial",
  },
  // A membership's monthly allowance only counts: beyond it calls continue as overage. Permanent keys never reset it.
  {
    name: "month",
    limit: "per_key_monthly",
    overridable: true,
    length: { kind: "month" },
    appliesTo: (r) => r.type !== "trial",
    enforced: false,
    owner: "key",
    letter: "m",
    slot: "month",
  },
  {
    name: "pool",
    limit: "volume_monthly_5_keys",
    overridable: true,
    length: { kind: "month" },
    appliesTo: (r) => r.type !== "trial" && r.plan === "volume" && r.account !== null,
    enforced: false,
    owner: "pool",
    letter: "m",
    slot: "month",
  },
] satisfies QuotaWindowSpec[]);

/** The limits RETRIEVAL_LIMITS may override, in table order. */
export const OVERRIDABLE_LIMITS: readonly WindowLimitField[] = Object.freeze([
  ...new Set(
    QUOTA_WINDOWS.filter((w) => w.overridable).flatMap((w) =>
      typeof w.limit === "string" ? [w.limit] : [w.limit.standard, w.limit.volume],
    ),
  ),
]);

/** The size of `spec` for this key. */
export function windowLimit(spec: QuotaWindowSpec, record: KeyRecord, limits: Limits): number {
  const field = typeof spec.limit === "string" ? spec.limit : record.plan === "volume" ? spec.limit.volume : spec.limit.standard;
  return limits[field];
}
