/**
 * The cohort seat ledger on both stores, through two connections each (two instances on one
 * SQLite file, two on one Redis): a burst of claims holds the cap exactly, a holder's repeat
 * takes nothing more, a seat is returned once however often it is given back, a return that
 * comes before its claim fences the claim off, and a roster from before the ledger is its base.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { claimSeat, readSeatsHeld, returnSeat } from "../../runtime/domain/cohorts/seat-ledger.ts";
import type { Cohort } from "../../runtime/shared/schema/catalog.ts";
import type { StateBackend } from "../../runtime/state/storage/backend.ts";
import { cohortMembersList } from "../../runtime/state/storage/list-names.ts";
import { createRedisBackend } from "../../runtime/state/storage/redis-backend.ts";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from "../cluster/_cluster.ts";

const NOW = Date.UTC(2026, 10, 22, 10, 30);
const inaugural = (member_cap: number): Cohort => ({
  name: "inaugural",
  member_cap,
  price_usd_micros: 19_000_000,
  loyalty_credit_usd_micros: 1_900_000,
});

const redisRun = uniquePrefix();
let redisN = 0;
afterAll(() => deletePrefix(SHARED_REDIS_URL, redisRun));

describe.each([
  [
    "SQLite, two connections",
    () => {
      const dataDir = mkdtempSync(join(tmpdir(), "vkr-seats-"));
      return () => Promise.resolve(createSqliteBackend({ dataDir }));
    },
  ],
  [
    "Redis, two connections",
    () => {
      const prefix = `${redisRun}${redisN++}:`;
      return () => createRedisBackend({ url: SHARED_REDIS_URL, prefix });
    },
  ],
] as const)("seat ledger on %s", (_name, store) => {
  const opened: StateBackend[] = [];
  const pair = async () => {
    const open = store();
    const both = [await open(), await open()] as const;
    opened.push(...both);
    return both;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((b) => b.close()));
  });

  it("admits exactly the cap from a burst of 300 claims over two connections", async () => {
    const [a, b] = await pair();
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => claimSeat(i % 2 ? a : b, inaugural(37), `pur_${i}`, NOW)));
    expect(results.filter(Boolean)).toHaveLength(37);
    expect(await readSeatsHeld(a, "inaugural", NOW)).toBe(37);
    expect(await readSeatsHeld(b, "inaugural", NOW)).toBe(37);
  });

  it("takes one seat per holder however often it asks, and returns it once", async () => {
    const [a, b] = await pair();
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => claimSeat(i % 2 ? a : b, inaugural(5), "pur_same", NOW)));
    expect(claims.every(Boolean)).toBe(true);
    expect(await readSeatsHeld(a, "inaugural", NOW)).toBe(1);
    const returns = await Promise.all(Array.from({ length: 20 }, (_, i) => returnSeat(i % 2 ? a : b, "inaugural", "pur_same", NOW)));
    expect(returns.filter(Boolean)).toHaveLength(1);
    expect(await readSeatsHeld(b, "inaugural", NOW)).toBe(0);
  });

  it("gives a returned seat to the next claimer once the cohort was full", async () => {
    const [a, b] = await pair();
    expect(await claimSeat(a, inaugural(1), "pur_first", NOW)).toBe(true);
    expect(await claimSeat(b, inaugural(1), "pur_second", NOW)).toBe(false);
    expect(await returnSeat(b, "inaugural", "pur_first", NOW)).toBe(true);
    expect(await claimSeat(a, inaugural(1), "pur_second", NOW)).toBe(true);
    expect(await readSeatsHeld(b, "inaugural", NOW)).toBe(1);
  });

  it("fences a holder whose seat is given back before it claimed", async () => {
    const [a] = await pair();
    expect(await returnSeat(a, "inaugural", "pur_late", NOW)).toBe(false);
    await claimSeat(a, inaugural(3), "pur_late", NOW);
    expect(await readSeatsHeld(a, "inaugural", NOW)).toBe(0);
  });

  it("counts the roster a cohort had before the ledger as its base, fixed once", async () => {
    const [a, b] = await pair();
    for (const member of ["old-1", "old-2"]) await a.claimPosition(cohortMembersList("inaugural"), member);
    expect(await readSeatsHeld(b, "inaugural", NOW)).toBe(2);
    expect(await claimSeat(b, inaugural(3), "pur_new", NOW)).toBe(true);
    // The new member joins the roster at issuance; the base does not move with it.
    await b.claimPosition(cohortMembersList("inaugural"), "new-1");
    expect(await claimSeat(a, inaugural(3), "pur_next", NOW)).toBe(false);
    expect(await readSeatsHeld(a, "inaugural", NOW)).toBe(3);
  });
});
