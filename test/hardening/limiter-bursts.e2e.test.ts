/**
 * The audit: every other per-client or per-key limiter holds against one
 * concurrent burst, on SQLite and over two instances on Redis, because each consumes its count
 * atomically before acting (none reads, acts, then writes). 240 requests written at once per
 * store; exactly the limit gets through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTER_ADMIN_KEY, deletePrefix, SHARED_REDIS_URL, startInstances, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type RawRequest, socketBurst, tally } from "./socket-burst.ts";

const BURST = 240;
const LIMITS = {
  TRIALS_PER_CLIENT_HOUR: "5",
  NEW_IDENTITIES_PER_CLIENT_DAY: "12",
  INTEREST_ANON_PER_CLIENT_DAY: "7",
  OUTCOMES_PER_KEY_DAY: "9",
};
const prefix = uniquePrefix();
let stores: ChildServer[][] = [];

beforeAll(async () => {
  const dist = buildContentTo(writeFixtureContent());
  const [sqlite, redis] = await Promise.all([
    startInstances(1, { DIST_DIR: dist, ...LIMITS }),
    startInstances(2, { DIST_DIR: dist, REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix, ...LIMITS }),
  ]);
  stores = [sqlite, redis];
});
afterAll(async () => {
  await Promise.all(stores.flat().map((s) => s.kill()));
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

const json = (path: string, body: unknown, headers: Record<string, string> = {}): RawRequest => ({
  method: "POST",
  path,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/** The burst split evenly over the servers, all written at once; statuses tallied. */
async function burst(servers: ChildServer[], request: (i: number) => RawRequest): Promise<Record<number, number>> {
  const share = BURST / servers.length;
  const all = await Promise.all(servers.map((s, t) => socketBurst(s.url, share, (i) => request(t * share + i))));
  return tally(all.flat());
}

describe.each([
  ["SQLite", 0],
  ["Redis, two instances", 1],
] as const)("one burst of 240 against each limiter on %s", (_name, index) => {
  const servers = () => stores[index]!;

  it("trial keys per client per hour", async () => {
    expect(await burst(servers(), (i) => json("/api/trial", { agent_id: `burst-trial-${i}`, vertical: "travel" }))).toEqual({
      200: 5,
      429: BURST - 5,
    });
  });

  it("new identities per client per day on the waitlist and on interest", async () => {
    expect(await burst(servers(), (i) => json("/api/waitlist", { vertical: "logistics", agent_id: `burst-wl-${i}` }))).toEqual({
      200: 12,
      429: BURST - 12,
    });
    expect(await burst(servers(), (i) => json("/api/interest", { vertical: "logistics", agent_id: `burst-in-${i}` }))).toEqual({
      200: 12,
      429: BURST - 12,
    });
  });

  it("anonymous interest signals per client per day", async () => {
    expect(await burst(servers(), () => json("/api/interest", { vertical: "logistics" }))).toEqual({ 200: 7, 429: BURST - 7 });
  });

  it("Proof-of-Outcome submissions per key per day", async () => {
    const res = await fetch(`${servers()[0]!.url}/api/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${CLUSTER_ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ vertical: "travel" }),
    });
    const key: string = ((await res.json()) as { keys: Array<{ key: string }> }).keys[0]!.key;
    const statuses = await burst(servers(), () => json("/api/telemetry", { confidence_score: 0.5 }, { "x-service-key": key }));
    expect(statuses[429]).toBe(BURST - 9);
    expect(
      Object.keys(statuses)
        .filter((s) => s !== "429")
        .every((s) => Number(s) < 300),
    ).toBe(true);
  });
});
