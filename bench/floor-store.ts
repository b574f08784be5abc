// The one write every metered request makes, as the floors of the bench make it: the atomic
// check-and-increment of the presented key's hour, day and month windows in the service's own
// embedded store (the same SQLite backend: group commit, counter cache and log, one row per key,
// checkpoints on a worker), in the row the service writes for that key.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashKey, keyIdOf } from "../runtime/domain/keys/key-secret.ts";
import { type PlannedWindow, planWindows } from "../runtime/domain/metering/quota.ts";
import type { Limits } from "../runtime/shared/schema/catalog.ts";
import type { ConsumeResult } from "../runtime/state/storage/backend.ts";
import { createSqliteBackend } from "../runtime/state/storage/sqlite-backend.ts";
import { membershipRecord } from "../test/helpers/key-record.ts";

const HUGE = 1e9;
const limits: Limits = {
  per_key_monthly: HUGE,
  volume_monthly_5_keys: HUGE,
  hourly_rate_limit: HUGE,
  daily_standard: HUGE,
  daily_scale: HUGE,
  overage_per_call_usd_micros: 0,
  per_use_price_usd_micros: 0,
  trial_calls: HUGE,
  trial_hours: 1,
  keys_per_account: 5,
  referral_credit_usd_micros: 0,
  referrals_per_cycle: 0,
  demand_signals_to_activate: 1,
  refund_window_days: 0,
  refund_max_retrievals: 0,
};
// The service keeps each key's windows for the hour; so does this, keyed by the presented string.
// The record id is the service's (the first 12 hex digits of the key's SHA-256), so each key's
// counters land in the row the service writes, at the same place in the table: numbered ids put
// keys issued one after another into neighbouring rows, and a batch of them then wrote a handful
// of pages where the service, whose ids are spread over the whole table, writes one page per key.
const HOUR = 3_600_000;
const plans = new Map<string, { hourStart: number; windows: PlannedWindow[] }>();

function _windowsOf(key: string, now: number): PlannedWindow[] {
  const hourStart = Math.floor(now / HOUR) * HOUR;
  const hit = plans.get(key);
  if (hit !== undefined && hit.hourStart === hourStart) return hit.windows;
  const windows = planWindows(membershipRecord(keyIdOf(hashKey(key))), limits, now);
  plans.set(key, { hourStart, windows });
  return windows;
}

export function createFloorStore(): { consume(key: string): Promise<ConsumeResult> } {
  const backend = createSqliteBackend({
    dataDir: mkdtempSync(join(tmpdir(), "vkr-floor-")),
    onCheckpointError: (m) => process.stderr.write(`checkpoint: ${m}\n`),
  });
  return {
    consume(key) {
      const now = Date.now();
      return backend.consume(_windowsOf(key, now), 1, now);
    },
  };
}
