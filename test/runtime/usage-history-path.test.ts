/**
 * The usage history stays off the metered path: a metered call is one `consume` on the store and
 * nothing else (no record, no second counter write), and the history is still exact, because it
 * is read from the day counters that call already wrote.
 */
import { describe, expect, it } from "vitest";
import { meterKey } from "../../runtime/domain/metering/meter.ts";
import { readUsageHistory } from "../../runtime/domain/metering/usage-history.ts";
import type { Limits } from "../../runtime/shared/schema/catalog.ts";
import type { StateBackend } from "../../runtime/state/storage/backend.ts";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { membershipRecord } from "../helpers/key-record.ts";

const LIMITS = {
  per_key_monthly: 10_000,
  volume_monthly_5_keys: 50_000,
  hourly_rate_limit: 1_000,
  daily_standard: 5_000,
  daily_scale: 50_000,
  trial_calls: 500,
} as Limits;
const T0 = Date.UTC(2026, 10, 22, 10, 30);

/** The backend with every call to its primitives and its records counted by name. */
function counted(backend: StateBackend): { backend: StateBackend; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  const records = new Proxy(backend.records, {
    get: (target, prop, receiver) => {
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function"
        ? (...args: unknown[]) => {
            count(`records.${String(prop)}`);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          }
        : value;
    },
  });
  const wrapped = new Proxy(backend, {
    get: (target, prop, receiver) => {
      if (prop === "records") return records;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function"
        ? (...args: unknown[]) => {
            count(String(prop));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          }
        : value;
    },
  });
  return { backend: wrapped, calls };
}

describe("usage history off the metered path", () => {
  it("a metered call is one consume and nothing else, and the history still counts it", async () => {
    const store = createSqliteBackend({ dataDir: ":memory:" });
    const { backend, calls } = counted(store);
    const key = membershipRecord("abcdefabcdef");
    try {
      await Promise.all(Array.from({ length: 200 }, (_, i) => meterKey(backend, LIMITS, key, T0 + i)));
      expect(Object.fromEntries(calls)).toEqual({ consume: 200 });
      expect(await readUsageHistory(store, LIMITS, key, T0 + 1000)).toEqual([{ date: "2026-11-22", requests: 200 }]);
    } finally {
      await store.close();
    }
  });
});
