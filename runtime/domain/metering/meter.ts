/**
 * Metering of a key: plans the windows, then one atomic check-and-increment across all of them.
 * A denied request consumes nothing; an admitted one returns the RateLimit headers to send.
 *
 * A key's plan (window keys, limits, policy string) only changes when one of its windows ends
 * (the earliest reset of the table in windows.ts, a minute for a one-minute window) or when its
 * record or the limits change, so it is kept per key and reused for that span
 * (docs/performance.md has what planning on every request cost).
 */
import { boundedCache } from "../../shared/cache.ts";
import { apiError } from "../../shared/errors.ts";
import type { Limits } from "../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { ConsumeResult, StateBackend } from "../../state/storage/backend.ts";
import { consumeQuota, type PlannedWindow, planSpan, planWindows, secondsUntil } from "./quota.ts";
import { rateLimitPolicy, rateLimitValue, tightestWindow } from "./rate-limit-headers.ts";
import { QUOTA_WINDOWS, type QuotaWindowSpec } from "./windows.ts";

const WINDOW_WORDS: Record<string, string> = { hour: "hourly", day: "daily" };

/**
 * The RateLimit headers of an admitted request, one promise after the store's (a metered read
 * awaits this on every request, and each async layer between it and the store was a promise and
 * a turn more). `table`: the windows to meter (tests meter other tables; the service meters
 * `QUOTA_WINDOWS`).
 */
export function meterKey(
  backend: StateBackend,
  limits: Limits,
  record: KeyRecord,
  now: number,
  table: readonly QuotaWindowSpec[] = QUOTA_WINDOWS,
): Promise<Record<string, string>> {
  const plan = _plan(record, limits, now, table);
  let consumed: Promise<ConsumeResult>;
  try {
    consumed = consumeQuota(backend, plan.windows, now);
  } catch (error) {
    return Promise.reject(_storeUnavailable(error));
  }
  return consumed.then((result) => _admit(plan, result, now), _refuseUnavailable);
}

// --- Internal helpers ---

/** The RateLimit headers of an admitted request, or the 429 of the window that denied it. */
function _admit(plan: CachedPlan, result: ConsumeResult, now: number): Record<string, string> {
  const { windows, policy } = plan;
  if (!result.admitted) {
    const w = windows[result.deniedIndex]!;
    const retry = secondsUntil(w.resetAt, now);
    const headers: Record<string, string> = {
      "ratelimit-policy": policy,
      ratelimit: rateLimitValue(w, result.counts[result.deniedIndex]!, now),
    };
    if (w.name === "trial") throw apiError("trial_exhausted", { headers, extra: { window: "trial", limit: w.quota } });
    if (retry !== null) headers["retry-after"] = String(retry);
    throw apiError("quota_exceeded", {
      detail: `The ${WINDOW_WORDS[w.name] ?? w.name} limit of ${w.quota} calls is reached.`,
      headers,
      extra: { window: w.name, limit: w.quota, retry_after: retry },
    });
  }
  const tight = tightestWindow(windows, result.counts);
  return { "ratelimit-policy": policy, ratelimit: rateLimitValue(windows[tight]!, result.counts[tight]!, now) };
}

/**
 * Never serve metered content unmetered: without the store we cannot count, so we refuse. The
 * cause goes with the problem, for the log line of the request (`http/log-cause.ts`).
 */
function _storeUnavailable(error: unknown) {
  const refused = apiError("store_unavailable", { detail: "Metering is unavailable; retry shortly.", headers: { "retry-after": "5" } });
  refused.cause = error;
  return refused;
}

function _refuseUnavailable(error: unknown): never {
  throw _storeUnavailable(error);
}

interface CachedPlan {
  record: KeyRecord;
  limits: Limits;
  table: readonly QuotaWindowSpec[];
  /** The span of time the plan's windows hold for (`planSpan`). */
  from: number;
  until: number;
  windows: PlannedWindow[];
  policy: string;
}

const PLANS_MAX = 50_000;
const plans = boundedCache<string, CachedPlan>(PLANS_MAX);

function _plan(record: KeyRecord, limits: Limits, now: number, table: readonly QuotaWindowSpec[]): CachedPlan {
  const hit = plans.get(record.id);
  // Record objects are replaced when the key changes (the keys store re-reads them), so identity
  // is a sound test; time is checked against the plan's own windows, never a fixed hour.
  if (hit !== undefined && hit.record === record && hit.limits === limits && hit.table === table && now >= hit.from && now < hit.until)
    return hit;
  const windows = planWindows(record, limits, now, table);
  const plan = { record, limits, table, ...planSpan(windows), windows, policy: rateLimitPolicy(windows, limits) };
  // A trial key without an end date ends a day after first use, a time that moves with `now`.
  if (record.type === "trial" && !record.expires_at) return plan;
  plans.set(record.id, plan);
  return plan;
}
