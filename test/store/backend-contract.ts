/**
 * The one store contract suite (principle 10): every StateBackend runs it, so SQLite and Redis
 * cannot drift apart. `factory()` returns a fresh, empty backend; `cleanup` runs after each test.
 */
import { afterEach, describe, expect, it } from "vitest";
import { meterKey } from "../../runtime/domain/metering/meter.ts";
import { foldUsageHistory, readUsageHistory } from "../../runtime/domain/metering/usage-history.ts";
import { DAY_MS } from "../../runtime/domain/metering/windows.ts";
import type { Limits } from "../../runtime/shared/schema/catalog.ts";
import { type CounterWindow, EXPIRED_COUNTER_KEPT_MS, type StateBackend } from "../../runtime/state/storage/backend.ts";
import { createKeysStore } from "../../runtime/state/storage/keys-store.ts";
import { membershipRecord } from "../helpers/key-record.ts";

export interface BackendFactory {
  /** A fresh, empty backend; call it again for a second client of the SAME store when `shared`. */
  create(): Promise<StateBackend>;
  /** Whether two `create()` calls in one test see the same data (separate clients of one store). */
  shared: boolean;
}

const NOW = Date.now();
const HOUR = 3_600_000;
const LIMITS = {
  per_key_monthly: 10_000,
  volume_monthly_5_keys: 50_000,
  hourly_rate_limit: 1_000,
  daily_standard: 5_000,
  daily_scale: 50_000,
  trial_calls: 500,
  overage_per_call_usd_micros: 0,
} as Limits;

export function testBackend(name: string, factory: () => BackendFactory): void {
  describe(`StateBackend contract: ${name}`, () => {
    const opened: StateBackend[] = [];
    let current: BackendFactory;
    const open = async () => {
      const backend = await current.create();
      opened.push(backend);
      return backend;
    };
    const fresh = async () => {
      current = factory();
      return open();
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((b) => b.close()));
    });

    it("stores, lists and removes records", async () => {
      const b = await fresh();
      await b.records.setItem("keys:abc", { id: "k1", n: 2 });
      await b.records.setItem("keys:def", { id: "k2", n: 3 });
      await b.records.setItem("accounts:61:abc", 1);
      expect(await b.records.getItem("keys:abc")).toEqual({ id: "k1", n: 2 });
      expect(await b.records.hasItem("keys:def")).toBe(true);
      expect((await b.records.getKeys("keys")).sort()).toEqual(["keys:abc", "keys:def"]);
      expect(await b.records.getKeys("accounts:61:")).toEqual(["accounts:61:abc"]);
      await b.records.removeItem("keys:abc");
      expect(await b.records.getItem("keys:abc")).toBeNull();
      expect(await b.ping()).toBe(true);
    });

    it("consume checks every window, then increments all of them, or none", async () => {
      const b = await fresh();
      const windows: CounterWindow[] = [
        { key: "q:{k:1}:h", limit: 3, expiresAt: NOW + HOUR },
        { key: "q:{k:1}:d", limit: 5, expiresAt: NOW + 24 * HOUR },
        { key: "q:{k:1}:m", limit: Number.POSITIVE_INFINITY, expiresAt: Number.MAX_SAFE_INTEGER },
      ];
      const results = [];
      for (let i = 0; i < 10; i++) results.push(await b.consume(windows, 1, NOW));
      expect(results.filter((r) => r.admitted)).toHaveLength(3);
      expect(results[2]).toEqual({ admitted: true, counts: [3, 3, 3], deniedIndex: -1 });
      expect(results[3]).toEqual({ admitted: false, counts: [3, 3, 3], deniedIndex: 0 });
      // Nothing was incremented by the 7 denials: the day counter reads 3, not 10.
      expect(
        await b.readCounters(
          windows.map((w) => w.key),
          NOW,
        ),
      ).toEqual([3, 3, 3]);
      // The day window denies once the hour rolls over (a new hour key).
      const nextHour = [{ ...windows[0]!, key: "q:{k:1}:h2" }, windows[1]!];
      expect((await b.consume(nextHour, 2, NOW)).admitted).toBe(true);
      const denied = await b.consume(nextHour, 1, NOW);
      expect(denied).toEqual({ admitted: false, counts: [2, 5], deniedIndex: 1 });
    });

    it("an expired counter counts as zero and starts again", async () => {
      const b = await fresh();
      const w = { key: "trialrate:ip:1", limit: 2, expiresAt: NOW + 1000 };
      await b.consume([w], 2, NOW);
      expect((await b.consume([w], 1, NOW)).admitted).toBe(false);
      expect(await b.readCounters([w.key, "never-used"], NOW)).toEqual([2, 0]);
      expect(await b.readCounters([w.key], NOW + 1000)).toEqual([0]);
      expect(await b.consume([{ ...w, expiresAt: NOW + 5000 }], 1, NOW + 1000)).toEqual({ admitted: true, counts: [1], deniedIndex: -1 });
    });

    it("follows the injected clock even days behind real time (tests, replays): nothing is collected early", async () => {
      const b = await fresh();
      const past = NOW - 5 * 24 * HOUR;
      const w = { key: "q:{k:past}:h", limit: 3, expiresAt: past + HOUR };
      await b.consume([w], 2, past);
      expect(await b.readCounters([w.key], past)).toEqual([2]);
      expect((await b.consume([w], 2, past)).admitted).toBe(false);
      expect(await b.insertOnce("past-once", "first", past + HOUR, past)).toEqual({ created: true, value: "first" });
      expect(await b.insertOnce("past-once", "second", past + HOUR, past)).toEqual({ created: false, value: "first" });
    });

    it("consume never over-admits under concurrency", async () => {
      const b = await fresh();
      const clients = current.shared ? [b, await open(), await open()] : [b];
      const windows = [
        { key: "q:{k:c}:h", limit: 50, expiresAt: NOW + HOUR },
        { key: "q:{k:c}:d", limit: 1000, expiresAt: NOW + 24 * HOUR },
      ];
      const results = await Promise.all(Array.from({ length: 150 }, (_, i) => clients[i % clients.length]!.consume(windows, 1, NOW)));
      expect(results.filter((r) => r.admitted)).toHaveLength(50);
      expect(
        await b.readCounters(
          windows.map((w) => w.key),
          NOW,
        ),
      ).toEqual([50, 50]);
    });

    it("every client sees the increments the others committed in between (no stale copy)", async () => {
      const b = await fresh();
      const clients = current.shared ? [b, await open()] : [b, b];
      const w = [{ key: "q:{k:alt}:h", limit: 7, expiresAt: NOW + HOUR }];
      const seen: number[] = [];
      for (let i = 0; i < 9; i++) {
        const r = await clients[i % 2]!.consume(w, 1, NOW);
        seen.push(r.admitted ? r.counts[0]! : -1);
      }
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, -1, -1]);
      expect(await clients[1]!.readCounters([w[0]!.key], NOW)).toEqual([7]);
    });

    it("a ledger worth 5 spent from several clients at once serves exactly 5", async () => {
      const b = await fresh();
      const clients = current.shared ? [b, await open(), await open()] : [b];
      const ledger = [{ key: "ledger:{tok}:spent", limit: 5, expiresAt: NOW + HOUR }];
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % clients.length]!.consume(ledger, 1, NOW)));
      expect(results.filter((r) => r.admitted)).toHaveLength(5);
    });

    it("insertOnce: the first writer wins until the entry expires", async () => {
      const b = await fresh();
      expect(await b.insertOnce("trial:x", "first", NOW + 1000, NOW)).toEqual({ created: true, value: "first" });
      expect(await b.insertOnce("trial:x", "second", NOW + 1000, NOW + 10)).toEqual({ created: false, value: "first" });
      expect(await b.insertOnce("trial:x", "third", null, NOW + 1000)).toEqual({ created: true, value: "third" });
      expect(await b.insertOnce("trial:x", "fourth", null, NOW + 10 * HOUR)).toEqual({ created: false, value: "third" });
      await b.removeOnce("trial:x");
      expect(await b.insertOnce("trial:x", "fifth", null, NOW)).toEqual({ created: true, value: "fifth" });
      const racing = await Promise.all(Array.from({ length: 20 }, (_, i) => b.insertOnce("evt:1", `w${i}`, NOW + HOUR, NOW)));
      expect(racing.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(racing.map((r) => r.value)).size).toBe(1);
    });

    it("removeOnce with a value deletes only while the entry still holds it (compare and delete)", async () => {
      const b = await fresh();
      await b.insertOnce("slot:1", "holder-a", null, NOW);
      expect(await b.removeOnce("slot:1", "holder-b")).toBe(false);
      expect(await b.insertOnce("slot:1", "holder-b", null, NOW)).toEqual({ created: false, value: "holder-a" });
      expect(await b.removeOnce("slot:1", "holder-a")).toBe(true);
      expect(await b.removeOnce("slot:1", "holder-a")).toBe(false);
      expect(await b.insertOnce("slot:1", "holder-b", null, NOW)).toEqual({ created: true, value: "holder-b" });
      // A late duplicate release by the first holder must not free the second holder's entry.
      expect(await b.removeOnce("slot:1", "holder-a")).toBe(false);
      expect(await b.insertOnce("slot:1", "holder-c", null, NOW)).toEqual({ created: false, value: "holder-b" });
      expect(await b.removeOnce("slot:1")).toBe(true);
    });

    it("an expired counter stays readable as of a time before its expiry for a day after it (the usage history reads it then)", async () => {
      const b = await fresh();
      const clients = current.shared ? [b, await open()] : [b];
      const row = "q:{k:kept}:kept";
      const end = NOW + HOUR;
      const day = { key: `${row}:d:1`, row, limit: Number.POSITIVE_INFINITY, expiresAt: end };
      for (let i = 0; i < 4; i++) await clients[i % clients.length]!.consume([day], 1, NOW);
      // The next day's calls rewrite the row (the embedded store forgets old cells as it does).
      const next = { ...day, key: `${row}:d:2`, expiresAt: end + DAY_MS };
      await clients[0]!.consume([next], 1, end + EXPIRED_COUNTER_KEPT_MS - HOUR);
      for (const c of clients) {
        expect(await c.readCounters([day.key], end - 1, [row])).toEqual([4]);
        expect(await c.readCounters([day.key], end, [row])).toEqual([0]);
      }
    });

    it("usage history matches the metered calls per day, and drops days past 90", async () => {
      const b = await fresh();
      const clients = current.shared ? [b, await open()] : [b];
      const keys = createKeysStore(b, { cacheMs: 0 });
      const key = membershipRecord("a1b2c3d4e5f6");
      const other = membershipRecord("0f0e0d0c0b0a");
      await keys.put(key);
      await keys.put(other);
      const day0 = Math.floor(NOW / DAY_MS) * DAY_MS;
      const date = (d: number) => new Date(day0 + d * DAY_MS).toISOString().slice(0, 10);
      const meter = async (record: typeof key, n: number, at: number) => {
        // Concurrent, from every client, as a burst of requests would meter them.
        await Promise.all(Array.from({ length: n }, (_, i) => meterKey(clients[i % clients.length]!, LIMITS, record, at + i)));
      };
      const history = (at: number, record = key) => readUsageHistory(clients.at(-1)!, LIMITS, record, at);
      const fold = (at: number) => foldUsageHistory({ backend: b, keys }, LIMITS, at);

      await meter(key, 7, day0 + 10 * HOUR);
      await meter(other, 2, day0 + 11 * HOUR);
      expect(await history(day0 + 12 * HOUR)).toEqual([{ date: date(0), requests: 7 }]);
      // The last millisecond of a day counts in that day.
      await meter(key, 1, day0 + DAY_MS - 1);
      await meter(key, 5, day0 + DAY_MS + HOUR);
      // Yesterday is read live before it is folded.
      expect(await history(day0 + DAY_MS + 2 * HOUR)).toEqual([
        { date: date(0), requests: 8 },
        { date: date(1), requests: 5 },
      ]);
      expect(await fold(day0 + DAY_MS + 2 * HOUR)).toEqual({ day: date(0), keys: 2 });
      // Once a day: a second fold (another instance) has nothing to do.
      expect(await fold(day0 + DAY_MS + 3 * HOUR)).toEqual({ day: null, keys: 0 });
      await meter(key, 3, day0 + 2 * DAY_MS + HOUR);
      expect((await fold(day0 + 2 * DAY_MS + 2 * HOUR)).day).toBe(date(1));
      // Day 2 is folded on day 3; day 3 has no call.
      expect((await fold(day0 + 3 * DAY_MS + HOUR)).day).toBe(date(2));
      const expected = [
        { date: date(0), requests: 8 },
        { date: date(1), requests: 5 },
        { date: date(2), requests: 3 },
      ];
      expect(await history(day0 + 3 * DAY_MS + 2 * HOUR)).toEqual(expected);
      expect(await history(day0 + 3 * DAY_MS + 2 * HOUR, other)).toEqual([{ date: date(0), requests: 2 }]);
      // Long after the counters were forgotten, the folded days remain, for 90 days (today included).
      expect(await history(day0 + 89 * DAY_MS)).toEqual(expected);
      expect(await history(day0 + 90 * DAY_MS)).toEqual(expected.slice(1));
      expect(await history(day0 + 92 * DAY_MS + HOUR)).toEqual([]);
      // A fold after the gap keeps the key's history record to the same 90 days.
      await meter(key, 2, day0 + 91 * DAY_MS);
      expect((await fold(day0 + 92 * DAY_MS)).day).toBe(date(91));
      expect(await b.records.getItem(`usage:${key.id}`)).toEqual({
        days: [
          [day0 / DAY_MS + 2, 3],
          [day0 / DAY_MS + 91, 2],
        ],
      });
    });

    it("recordPages hands out every record under a prefix once, a bounded page at a time", async () => {
      const b = await fresh();
      const names = Array.from({ length: 23 }, (_, i) => `keys:${String(i).padStart(4, "0")}`);
      for (const name of names) await b.records.setItem(name, { n: name });
      // Neighbours of the prefix are not under it.
      await b.records.setItem("keysmith:1", { n: 1 });
      await b.records.setItem("key:1", { n: 1 });
      const pages: string[][] = [];
      for await (const page of b.recordPages("keys", 5)) pages.push(page);
      expect(pages.every((p) => p.length > 0 && p.length <= 5)).toBe(true);
      expect(pages.flat().sort()).toEqual(names);
      const none: string[][] = [];
      for await (const page of b.recordPages("nothing", 5)) none.push(page);
      expect(none).toEqual([]);
    });

    it("the key store's pages hold what its list holds, aliases left out", async () => {
      const b = await fresh();
      const keys = createKeysStore(b, { cacheMs: 0 });
      const records = Array.from({ length: 12 }, (_, i) => membershipRecord(i.toString(16).padStart(12, "0")));
      for (const record of records) await keys.put(record);
      await keys.put({ ...membershipRecord("ffffffffffff"), replaced_by: records[0]!.hash, replaced_until: "2026-12-01T00:00:00Z" });
      const paged: string[] = [];
      for await (const page of keys.pages(5)) {
        expect(page.length).toBeLessThanOrEqual(5);
        paged.push(...page.map((r) => r.id));
      }
      expect(paged.sort()).toEqual((await keys.list({})).map((r) => r.id).sort());
      expect(paged).toHaveLength(12);
    });

    it("the usage fold goes through keys a page at a time and lets other work in between", async () => {
      const b = await fresh();
      const keys = createKeysStore(b, { cacheMs: 0 });
      // More keys than one page of the fold (500), written as records: no metering needed.
      for (let i = 0; i < 1200; i++) {
        const record = membershipRecord(i.toString(16).padStart(12, "0"));
        await b.records.setItem(`keys:${record.hash}`, record);
      }
      const day0 = Math.floor(NOW / DAY_MS) * DAY_MS;
      await meterKey(b, LIMITS, membershipRecord((1199).toString(16).padStart(12, "0")), day0 + HOUR);
      let between = false;
      const folding = foldUsageHistory({ backend: b, keys }, LIMITS, day0 + DAY_MS + HOUR);
      // Scheduled after the fold began: it runs before the fold ends only if the fold yields to the event loop.
      setImmediate(() => (between = true));
      const folded = await folding;
      expect(between).toBe(true);
      expect(folded).toEqual({ day: new Date(day0).toISOString().slice(0, 10), keys: 1 });
    });

    it("claimPosition gives unique consecutive positions, stable on repeats", async () => {
      const b = await fresh();
      const clients = current.shared ? [b, await open(), await open()] : [b];
      const claims = await Promise.all(
        Array.from({ length: 60 }, (_, i) => clients[i % clients.length]!.claimPosition("waitlist:legal", `agent-${i}`)),
      );
      expect(claims.map((c) => c.position).sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect(claims.every((c) => c.created)).toBe(true);
      const again = await b.claimPosition("waitlist:legal", "agent-7");
      expect(again).toEqual({ position: claims[7]!.position, created: false });
      expect(await b.countList("waitlist:legal")).toBe(60);
      expect(await b.countList("waitlist:other")).toBe(0);
    });
  });
}
