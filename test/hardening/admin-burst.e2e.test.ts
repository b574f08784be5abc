/**
 * One concurrent burst of wrong admin bearers gets at most the limit evaluated
 * (403) and everything else 429, on the embedded store and on Redis: the attempt is consumed
 * before the secret is compared, not counted after. Bundled servers in their own processes, as
 * the review attacked them (an in-process server shares the test's event loop, which spreads
 * the burst out and hid the race).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTER_ADMIN_KEY, deletePrefix, SHARED_REDIS_URL, startInstances, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { socketBurst, tally } from "./socket-burst.ts";

const BURST = 240;
const LIMIT = 10; // the default ADMIN_FAILURES_PER_15_MIN
const prefix = uniquePrefix();
let sqlite: ChildServer;
let redis: ChildServer[] = [];

beforeAll(async () => {
  const dist = buildContentTo(writeFixtureContent());
  const [embedded, shared] = await Promise.all([
    startInstances(1, { DIST_DIR: dist }),
    startInstances(2, { DIST_DIR: dist, REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix }),
  ]);
  sqlite = embedded[0]!;
  redis = shared;
});
afterAll(async () => {
  await Promise.all([sqlite, ...redis].map((s) => s?.kill()));
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

/** The burst split evenly over `targets`, every request written at the same instant. */
async function burst(targets: ChildServer[], path: string): Promise<Record<number, number>> {
  const share = BURST / targets.length;
  const all = await Promise.all(
    targets.map((server, t) =>
      socketBurst(server.url, share, (i) => ({ method: "GET", path, headers: { authorization: `Bearer wrong-guess-${t}-${i}` } })),
    ),
  );
  return tally(all.flat());
}

/** `count` right bearers at once over `targets` (an operator issuing or listing keys in parallel). */
async function rightBurst(targets: ChildServer[], count: number): Promise<Record<number, number>> {
  const share = count / targets.length;
  const all = await Promise.all(
    targets.map((server) =>
      socketBurst(server.url, share, () => ({
        method: "GET",
        path: "/api/admin/keys",
        headers: { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` },
      })),
    ),
  );
  return tally(all.flat());
}

const admin = (server: ChildServer) =>
  fetch(`${server.url}/api/admin/keys`, { headers: { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` } }).then((r) => r.status);

describe(`one burst of ${BURST} concurrent wrong admin bearers (limit ${LIMIT} per 15 minutes per client)`, () => {
  it("on SQLite: exactly the limit is evaluated, the rest is refused before comparing; right bearers used none of it", async () => {
    for (let i = 0; i < 2 * LIMIT; i++) expect(await admin(sqlite)).toBe(200);
    // Right bearers take a slot only while they are compared: a parallel burst of them is all served.
    expect(await rightBurst([sqlite], 120)).toEqual({ 200: 120 });
    expect(await burst([sqlite], "/api/admin/keys")).toEqual({ 403: LIMIT, 429: BURST - LIMIT });
    expect(await admin(sqlite)).toBe(429); // the limit is on the client, so the right key waits too
  });

  it("on Redis, split over two instances: exactly the limit is evaluated in total", async () => {
    expect(await rightBurst(redis, 120)).toEqual({ 200: 120 });
    expect(await burst(redis, "/api/admin/keys")).toEqual({ 403: LIMIT, 429: BURST - LIMIT });
    for (const server of redis) expect(await admin(server)).toBe(429);
  });
});
