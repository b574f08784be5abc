/**
 * Quota windows declared once (runtime/domain/metering/windows.ts): a window shorter than an hour counts
 * for its own length. The meter reuses a key's plan of windows while it holds; a plan kept for the
 * whole hour would go on counting a one-minute window's calls in the minute it was made in, and
 * deny a key that the next minute has freed. Real SQLite store, injected time.
 */
import { describe, expect, it } from "vitest";
import { meterKey } from "../../runtime/domain/metering/meter.ts";
import { planWindows } from "../../runtime/domain/metering/quota.ts";
import { OVERRIDABLE_LIMITS, QUOTA_WINDOWS, type QuotaWindowSpec } from "../../runtime/domain/metering/windows.ts";
import { isApiError } from "../../runtime/shared/errors.ts";
import type { Limits } from "../../runtime/shared/schema/catalog.ts";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { membershipRecord } from "../helpers/key-record.ts";

/** 10:30 UTC: the minutes below stay inside one hour. */
const T0 = Date.UTC(2026, 10, 22, 10, 30, 0);
const MINUTE = 60_000;

const LIMITS = {
  per_key_monthly: 10_000,
  volume_monthly_5_keys: 50_000,
  hourly_rate_limit: 1_000,
  daily_standard: 5_000,
  daily_scale: 50_000,
  trial_calls: 500,
} as Limits;

/** The service's windows plus one of a minute, sized by the catalogue's monthly field (any field would do). */
const MINUTE_WINDOW: QuotaWindowSpec = {
  name: "minute",
  limit: "per_key_monthly",
  overridable: false,
  length: { kind: "fixed", ms: MINUTE },
  appliesTo: () => true,
  enforced: true,
  owner: "key",
  letter: "n",
  slot: "hour",
};
const WITH_MINUTE = [MINUTE_WINDOW, ...QUOTA_WINDOWS];

async function outcome(run: Promise<unknown>): Promise<string> {
  try {
    await run;
    return "admitted";
  } catch (error) {
    if (isApiError(error)) return `${error.code}:${(error.options.extra as { window?: string } | undefined)?.window}`;
    throw error;
  }
}

describe("quota windows", () => {
  it("a one-minute window counts for a minute, not for the rest of the hour", async () => {
    const backend = createSqliteBackend({ dataDir: ":memory:" });
    const limits = { ...LIMITS, per_key_monthly: 2 };
    const key = membershipRecord("aaaabbbbcccc");
    try {
      expect(await outcome(meterKey(backend, limits, key, T0, WITH_MINUTE))).toBe("admitted");
      expect(await outcome(meterKey(backend, limits, key, T0 + 1_000, WITH_MINUTE))).toBe("admitted");
      expect(await outcome(meterKey(backend, limits, key, T0 + 2_000, WITH_MINUTE))).toBe("quota_exceeded:minute");
      // The next minute of the same hour: a fresh minute window.
      expect(await outcome(meterKey(backend, limits, key, T0 + MINUTE, WITH_MINUTE))).toBe("admitted");
      expect(await outcome(meterKey(backend, limits, key, T0 + MINUTE + 1_000, WITH_MINUTE))).toBe("admitted");
      expect(await outcome(meterKey(backend, limits, key, T0 + MINUTE + 2_000, WITH_MINUTE))).toBe("quota_exceeded:minute");
      const headers = await meterKey(backend, limits, key, T0 + 2 * MINUTE + 30_000, WITH_MINUTE);
      expect(headers["ratelimit-policy"]).toContain(`"minute";q=2;w=60`);
      expect(headers.ratelimit).toBe(`"minute";r=1;t=30`);
    } finally {
      await backend.close();
    }
  });

  it("derives the plan's windows, their rows and the overridable limits from the one table", () => {
    const windows = planWindows(membershipRecord("aaaabbbbcccc"), LIMITS, T0);
    expect(windows.map((w) => w.name)).toEqual(["hour", "day", "month"]);
    // One row per key: the embedded store writes the windows of a metered request as one row.
    expect(new Set(windows.map((w) => w.row))).toEqual(new Set(["q:{k:aaaabbbbcccc}:aaaabbbbcccc"]));
    for (const w of windows) expect(w.key.startsWith(`${w.row}:`)).toBe(true);
    expect([...OVERRIDABLE_LIMITS].sort()).toEqual([
      "daily_scale",
      "daily_standard",
      "hourly_rate_limit",
      "per_key_monthly",
      "volume_monthly_5_keys",
    ]);
  });
});
