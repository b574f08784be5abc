/**
 * Per-request work must not grow with the number of keys in use. Once a key has been seen, a
 * metered read of it makes exactly one store call (the atomic consume of its windows) and reads
 * no key record, whether one key or hundreds take turns: a cache that missed for many keys (a key
 * record or its windows read again per request) would show up here as store reads per request.
 * Inside the embedded store, the part of a metered request that a profile showed growing with the
 * number of keys is what its batch writes: a batch writes one counter-log entry (its keys' rows,
 * each key's windows packed together), never a row per window or per key, and after every 1,024
 * entries a few rows folded from the log (test/store/sqlite-write-per-key.test.ts counts the pages).
 */
import type Database from "better-sqlite3";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let dist: string;
let svc: TestService | undefined;
beforeAll(() => void (dist = buildContentTo(writeFixtureContent())));
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

// Under the hourly limit of one key (200), which the one-key round spends from.
const KEYS = 150;

/** Counts the calls the service makes on its state store, by kind. */
function countStoreCalls(s: TestService) {
  const backend = s.service.deps.backend;
  const calls = { recordReads: 0, counterReads: 0, consumes: 0 };
  const getItem = backend.records.getItem.bind(backend.records);
  backend.records.getItem = ((...args: Parameters<typeof getItem>) => {
    calls.recordReads++;
    return getItem(...args);
  }) as typeof backend.records.getItem;
  const readCounters = backend.readCounters.bind(backend);
  backend.readCounters = (...args) => {
    calls.counterReads++;
    return readCounters(...args);
  };
  const consume = backend.consume.bind(backend);
  backend.consume = (...args) => {
    calls.consumes++;
    return consume(...args);
  };
  return calls;
}

/** Rows the store's SQLite connection has inserted, updated or deleted so far. */
function rowWrites(s: TestService): () => number {
  const db = (s.service.deps.backend.records.getMount("").driver as { getInstance(): Database.Database }).getInstance();
  const changes = db.prepare<[], number>("select total_changes()").pluck();
  return () => changes.get()!;
}

async function issueKeys(s: TestService, count: number): Promise<string[]> {
  const keys: string[] = [];
  while (keys.length < count) {
    const res = await s.request("/api/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      json: { vertical: "travel", quantity: 5 },
    });
    expect(res.status).toBe(201);
    keys.push(...(res.body.keys as Array<{ key: string }>).map((k) => k.key));
  }
  return keys.slice(0, count);
}

async function readAll(s: TestService, keys: string[]): Promise<void> {
  for (const key of keys) {
    const res = await s.request("/api/demo?vertical=travel&node=trv-m1", { headers: { "x-service-key": key } });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit")).toMatch(/^"hour";r=\d+;t=\d+$/);
  }
}

describe("work per metered request with many keys", () => {
  it("is one consume and no key-record read per request, for one key as for 150 keys in turn", async () => {
    svc = await startTestService(dist);
    const keys = await issueKeys(svc, KEYS);
    const calls = countStoreCalls(svc);
    await readAll(svc, keys); // first sight of each key: its record is read once (issuance may have cached the last few)
    expect(calls.recordReads).toBeGreaterThan(0);
    expect(calls.recordReads).toBeLessThanOrEqual(KEYS);

    const writes = rowWrites(svc);
    for (const round of [keys, Array.from({ length: KEYS }, () => keys[0]!)]) {
      Object.assign(calls, { recordReads: 0, counterReads: 0, consumes: 0 });
      const before = writes();
      await readAll(svc, round);
      expect(calls.consumes).toBe(KEYS);
      // One request at a time, so one batch each: one log entry per request, with many keys as with one.
      expect(writes() - before).toBe(KEYS);
      expect(calls.recordReads).toBe(0);
      // The keys cache checks the shared revision counter at most once a second (real time).
      expect(calls.counterReads).toBeLessThanOrEqual(5);
    }
  });
});
