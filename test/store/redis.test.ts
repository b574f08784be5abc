/**
 * The store contract on Redis (the local server on 127.0.0.1:6379 that `npm test` ensures), each
 * test under its own key prefix, deleted afterwards; plus what only Redis has: hash-tagged keys
 * and the 503 mapping when the server cannot be reached.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { isApiError } from "../../runtime/shared/errors.ts";
import { createRedisBackend } from "../../runtime/state/storage/redis-backend.ts";
import { deletePrefix } from "../cluster/_cluster.ts";
import { freePort } from "../helpers/child-server.ts";
import { testBackend } from "./backend-contract.ts";

const REDIS_URL = "redis://127.0.0.1:6379";
const RUN = `vkr-test:${randomBytes(4).toString("hex")}:`;
let n = 0;

afterAll(() => deletePrefix(REDIS_URL, RUN));

testBackend("redis", () => {
  const prefix = `${RUN}${n++}:`;
  return { shared: true, create: () => createRedisBackend({ url: REDIS_URL, prefix }) };
});

describe("redis backend specifics", () => {
  it("keeps each metering call in one cluster slot (hash-tagged keys) and the prefix on every key", async () => {
    const prefix = `${RUN}tags:`;
    const backend = await createRedisBackend({ url: REDIS_URL, prefix });
    const admin = new Redis(REDIS_URL);
    try {
      await backend.consume(
        [
          { key: "q:{k:abc}:k1:h:1", limit: 5, expiresAt: Date.now() + 60_000 },
          { key: "q:{k:abc}:k1:d:1", limit: 9, expiresAt: Date.now() + 60_000 },
        ],
        1,
        Date.now(),
      );
      await backend.claimPosition("waitlist:travel", "a");
      await backend.records.setItem("keys:h1", { id: "x" });
      const keys = (await admin.keys(`${prefix}*`)).sort();
      expect(keys).toEqual([
        `${prefix}c:q:{k:abc}:k1:d:1`,
        `${prefix}c:q:{k:abc}:k1:h:1`,
        `${prefix}l:{waitlist:travel}:pos`,
        `${prefix}l:{waitlist:travel}:seq`,
        `${prefix}r:keys:h1`,
      ]);
      // Redis Cluster hashes only the first {…} of a key: one call's keys share it, so one slot.
      const hashTag = (key: string) => /\{([^}]+)\}/.exec(key)?.[1];
      expect(new Set(keys.slice(0, 2).map(hashTag))).toEqual(new Set(["k:abc"]));
      expect(new Set(keys.slice(2, 4).map(hashTag))).toEqual(new Set(["waitlist:travel"]));
      // Counters expire on Redis' side too (garbage collection a day after the logical window).
      expect(await admin.pttl(keys[0]!)).toBeGreaterThan(86_000_000);
    } finally {
      await backend.close();
      await admin.quit();
    }
  });

  it("quota checks of one turn, sent as one script call, are answered exactly as one by one, in order", async () => {
    const backend = await createRedisBackend({ url: REDIS_URL, prefix: `${RUN}grouped:` });
    const admin = new Redis(REDIS_URL);
    try {
      const now = Date.now();
      const hour = { key: "q:{k:g}:k1:h", limit: 3, expiresAt: now + 1000 };
      const day = { key: "q:{k:g}:k1:d", limit: 4, expiresAt: now + 5000 };
      const later = { ...hour, expiresAt: now + 2000 };
      const results = await Promise.all([
        ...Array.from({ length: 4 }, () => backend.consume([hour, day], 1, now)),
        // The hour has ended for this check: its counter starts again, with the new expiry.
        backend.consume([later, day], 1, now + 1000),
        // The day is full now: denied on it, and the hour is left as it was.
        backend.consume([later, day], 1, now + 1000),
        backend.consume([later], -1, now + 1000),
      ]);
      expect(results.map((r) => [r.admitted, r.deniedIndex, ...r.counts])).toEqual([
        [true, -1, 1, 1],
        [true, -1, 2, 2],
        [true, -1, 3, 3],
        [false, 0, 3, 3],
        [true, -1, 1, 4],
        [false, 1, 1, 4],
        [true, -1, 0],
      ]);
      expect(await backend.readCounters([hour.key, day.key], now + 1000)).toEqual([0, 4]);
      const stored = `${RUN}grouped:c:${hour.key}`;
      expect(await admin.hget(stored, "e")).toBe(String(now + 2000));
      expect(await admin.pttl(stored)).toBeGreaterThan(86_000_000);
    } finally {
      await backend.close();
      await admin.quit();
    }
  });

  it("refuses to start when Redis cannot be reached (no silent fallback)", async () => {
    const port = await freePort();
    await expect(createRedisBackend({ url: `redis://127.0.0.1:${port}`, prefix: "x:", connectTimeoutMs: 300 })).rejects.toThrow();
  });

  it("without a connection every call fails at once as store_unavailable (no queueing)", async () => {
    const backend = await createRedisBackend({ url: REDIS_URL, prefix: `${RUN}lost:` });
    await backend.close();
    const started = Date.now();
    const errors = await Promise.all([
      backend.consume([{ key: "a", limit: 1, expiresAt: Date.now() + 1000 }], 1, Date.now()).catch((e: unknown) => e),
      backend.consume([{ key: "q:{k:a}:h", limit: 1, expiresAt: Date.now() + 1000 }], 1, Date.now()).catch((e: unknown) => e),
      backend.records.getItem("keys:x").catch((e: unknown) => e),
      backend.claimPosition("l", "m").catch((e: unknown) => e),
      backend.insertOnce("o", "v", null, Date.now()).catch((e: unknown) => e),
    ]);
    for (const error of errors) expect(isApiError(error) && error.code === "store_unavailable").toBe(true);
    expect(await backend.ping()).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
