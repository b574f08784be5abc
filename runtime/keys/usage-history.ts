/**
 * A key's daily usage over the last USAGE_HISTORY_DAYS days: the day quota window's counters,
 * which are kept that long after their day ends (metering/windows.ts), so the history is exactly
 * what the meter counted and costs the metered request nothing extra.
 */
import type { Limits } from "../schema/catalog.ts";
import type { KeyRecord } from "../schema/keys.ts";
import type { StateBackend } from "../storage/backend.ts";
import { planWindows } from "../metering/quota.ts";
import { DAY_MS, QUOTA_WINDOWS, USAGE_HISTORY_DAYS } from "../metering/windows.ts";

export interface DailyUsage {
  /** The UTC day, `YYYY-MM-DD`. */
  date: string;
  calls: number;
}

const DAY_WINDOW = QUOTA_WINDOWS.filter((w) => w.name === "day");

/** One entry per UTC day from the key's creation (at most USAGE_HISTORY_DAYS back) to today, oldest first. */
export async function readUsageHistory(backend: StateBackend, limits: Limits, record: KeyRecord, now: number): Promise<DailyUsage[]> {
  const today = Math.floor(now / DAY_MS);
  const created = Math.floor(Date.parse(record.created_at) / DAY_MS);
  const first = Math.max(today - USAGE_HISTORY_DAYS + 1, Number.isFinite(created) ? Math.min(created, today) : today);
  const windows = [];
  for (let day = first; day <= today; day++) windows.push(planWindows(record, limits, day * DAY_MS, DAY_WINDOW)[0]!);
  const counts = await backend.readCounters(
    windows.map((w) => w.key),
    now,
    windows.map((w) => w.row),
  );
  return windows.map((w, i) => ({ date: new Date(w.startedAt!).toISOString().slice(0, 10), calls: counts[i]! }));
}
