/**
 * Metering of a key: plans the windows, then one atomic check-and-increment across all of them.
 * A denied request consumes nothing; an admitted one returns the RateLimit headers to send.
 */
import { apiError } from "../errors.ts";
import type { Limits } from "../schema/catalog.ts";
import type { KeyRecord } from "../schema/keys.ts";
import type { StateBackend } from "../storage/backend.ts";
import { planWindows } from "./quota.ts";
import { secondsUntil } from "./quota.ts";
import { rateLimitPolicy, rateLimitValue, tightestWindow } from "./rate-limit-headers.ts";

const WINDOW_WORDS: Record<string, string> = { hour: "hourly", day: "daily" };

export interface MeterOutcome {
  headers: Record<string, string>;
}

export async function meterKey(backend: StateBackend, limits: Limits, record: KeyRecord, now: number): Promise<MeterOutcome> {
  const windows = planWindows(record, limits, now);
  let result;
  try {
    result = await backend.consume(windows, 1, now);
  } catch (error) {
    // Never serve metered content unmetered: without the store we cannot count, so we refuse.
    throw apiError("store_unavailable", { detail: "Metering is unavailable; retry shortly.", headers: { "retry-after": "5" } });
  }
  const policy = rateLimitPolicy(windows, limits);
  if (!result.admitted) {
    const w = windows[result.deniedIndex]!;
    const retry = secondsUntil(w.resetAt, now);
    const headers: Record<string, string> = { "ratelimit-policy": policy, ratelimit: rateLimitValue(w, result.counts[result.deniedIndex]!, now) };
    if (w.name === "trial") throw apiError("trial_exhausted", { headers, extra: { window: "trial", limit: w.quota } });
    if (retry !== null) headers["retry-after"] = String(retry);
    throw apiError("quota_exceeded", {
      detail: `The ${WINDOW_WORDS[w.name] ?? w.name} limit of ${w.quota} calls is reached.`,
      headers,
      extra: { window: w.name, limit: w.quota, retry_after: retry },
    });
  }
  const tight = tightestWindow(windows, result.counts);
  return { headers: { "ratelimit-policy": policy, ratelimit: rateLimitValue(windows[tight]!, result.counts[tight]!, now) } };
}
