/**
 * The client limiter (runtime/state/storage/client-limiter.ts) on a real backend, shared by the SQLite
 * and Redis test files: two limiters over one store stand for two instances behind a balancer.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { StateBackend } from "../../runtime/state/storage/backend.ts";
import { createClientLimiter } from "../../runtime/state/storage/client-limiter.ts";

export interface LimiterTarget {
  /** A new backend on the same store as every other one this target opened. */
  open(): Promise<StateBackend>;
}

const HOUR_MS = 3_600_000;

/** `sharedFreeReads`: whether free reads count in the store (Redis) or in each instance's memory (SQLite). */
export function testClientLimiter(name: string, sharedFreeReads: boolean, target: () => LimiterTarget): void {
  describe(`client limiter: ${name}`, () => {
    const opened: StateBackend[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((b) => b.close()));
    });
    const twoInstances = async () => {
      const t = target();
      const stores = [await t.open(), await t.open()];
      opened.push(...stores);
      return { stores, limiters: stores.map((s) => createClientLimiter(s)) };
    };

    it("a burst of 400 concurrent consumes over two instances admits exactly the limit", async () => {
      const { limiters } = await twoInstances();
      const now = Date.now();
      const waits = await Promise.all(Array.from({ length: 400 }, (_, i) => limiters[i % 2]!.consume("trial", "203.0.113.7", 37, now)));
      expect(waits.filter((w) => w === 0)).toHaveLength(37);
      const toHourEnd = Math.ceil((Math.floor(now / HOUR_MS + 1) * HOUR_MS - now) / 1000);
      expect(new Set(waits.filter((w) => w > 0))).toEqual(new Set([toHourEnd]));
      // Refused consumes counted nothing.
      expect(await limiters[1]!.count("trial", "203.0.113.7", now)).toBe(37);
    });

    it("keeps each limit's store key as it was, so live counts carry over a deploy", async () => {
      const { stores, limiters } = await twoInstances();
      const now = Date.now();
      const hour = Math.floor(now / HOUR_MS);
      const day = Math.floor(now / 86_400_000);
      const quarter = Math.floor(now / 900_000) * 900_000;
      await limiters[0]!.consume("trial", "198.51.100.1", 5, now, 3);
      await limiters[0]!.consume("admin-guesses", "198.51.100.1", 5, now, 2);
      await limiters[0]!.consume("waitlist-new", "2001:db8::/64", 5, now, 4);
      await limiters[0]!.consume("outcomes", "key_1", 9, now, 5);
      const counts = await stores[1]!.readCounters(
        [
          `trialrate:198.51.100.1:${hour}`,
          `adminfail:198.51.100.1:${quarter}`,
          `waitlist-new:2001:db8::/64:${day}`,
          `poo:day:key_1:${day}`,
        ],
        now,
      );
      expect(counts).toEqual([3, 2, 4, 5]);
    });

    it("a place given back is taken again; subjects and windows count apart", async () => {
      const { limiters } = await twoInstances();
      const [a, b] = limiters as [ReturnType<typeof createClientLimiter>, ReturnType<typeof createClientLimiter>];
      const now = Date.now();
      await a.consume("admin-guesses", "c1", 2, now);
      await b.consume("admin-guesses", "c1", 2, now);
      expect(await a.consume("admin-guesses", "c1", 2, now)).toBeGreaterThan(0);
      await b.giveBack("admin-guesses", "c1", now);
      expect(await a.consume("admin-guesses", "c1", 2, now)).toBe(0);
      expect(await a.consume("admin-guesses", "c2", 2, now)).toBe(0);
      expect(await b.consume("admin-guesses", "c1", 2, now + 900_000)).toBe(0);
    });

    it("assert throws the given problem with the window's Retry-After", async () => {
      const { limiters } = await twoInstances();
      const now = Date.now();
      const refusal = { code: "outcome_limit_reached" as const, detail: "enough for today" };
      await limiters[0]!.assert("outcomes", "key_2", 1, now, refusal);
      const error = await limiters[1]!.assert("outcomes", "key_2", 1, now, refusal).catch((e: unknown) => e);
      const toDayEnd = Math.ceil(((Math.floor(now / 86_400_000) + 1) * 86_400_000 - now) / 1000);
      expect(error).toMatchObject({
        code: "outcome_limit_reached",
        options: { detail: "enough for today", headers: { "retry-after": String(toDayEnd) } },
      });
    });

    it(`free reads: a burst of 300 over two instances admits the limit ${sharedFreeReads ? "once, shared" : "on each instance (counted in memory)"}`, async () => {
      const { limiters } = await twoInstances();
      const now = Date.now();
      const waits = await Promise.all(
        Array.from({ length: 300 }, (_, i) => limiters[i % 2]!.consume("free-reads:demo", "192.0.2.9", 25, now)),
      );
      expect(waits.filter((w) => w === 0)).toHaveLength(sharedFreeReads ? 25 : 50);
      expect(Math.max(...waits)).toBe(Math.ceil(((Math.floor(now / 60_000) + 1) * 60_000 - now) / 1000));
      // Another surface keeps its own count.
      expect(await limiters[0]!.consume("free-reads:search", "192.0.2.9", 25, now)).toBe(0);
    });
  });
}
