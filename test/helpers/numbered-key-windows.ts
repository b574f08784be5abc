/**
 * The quota windows the service plans for membership key number `i` (hour, day and month in one
 * row), its id a digest prefix spread over the table as the service's are; numbered so a test and
 * its child process agree. Limits are out of reach except the hour's, `hourly` (default: none).
 */
import { createHash } from "node:crypto";
import { type PlannedWindow, planWindows } from "../../runtime/domain/metering/quota.ts";
import type { Limits } from "../../runtime/shared/schema/catalog.ts";
import { membershipRecord } from "./key-record.ts";

const HUGE = 1e9;

export function numberedKeyWindows(i: number, now: number, hourly = HUGE): PlannedWindow[] {
  const id = createHash("sha256").update(`key-${i}`).digest("hex").slice(0, 12);
  const limits = {
    per_key_monthly: HUGE,
    hourly_rate_limit: hourly,
    daily_standard: HUGE,
    daily_scale: HUGE,
    volume_monthly_5_keys: HUGE,
    trial_calls: HUGE,
  } as Limits;
  return planWindows(membershipRecord(id), limits, now);
}
