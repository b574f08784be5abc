/**
 * A client is its network, not an address string: every per-client limit holds against one burst
 * of 240 requests sent from 240 addresses of one IPv6 /64, and from one IPv4 host written every
 * way it can be (`::ffff:` mapped, hex groups, with a port, in brackets, inside NAT64, 6to4 and
 * Teredo addresses). On one instance (SQLite) and split over two instances on one Redis. Behind a
 * trusted proxy (TRUST_PROXY), so the test picks each request's address in X-Forwarded-For; the
 * socket peer goes through the same reduction. The neighbouring /64 and another IPv4 host keep
 * budgets of their own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awayFromMinuteEnd, deletePrefix, SHARED_REDIS_URL, startInstances, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type RawRequest, socketBurst, tally } from "./socket-burst.ts";

const BURST = 240;
const LIMITS = {
  TRUST_PROXY: "1",
  ANON_RATE_PER_MINUTE: "30",
  TRIALS_PER_CLIENT_HOUR: "5",
  NEW_IDENTITIES_PER_CLIENT_DAY: "12",
  INTEREST_ANON_PER_CLIENT_DAY: "7",
  ADMIN_FAILURES_PER_15_MIN: "10",
};
const prefix = uniquePrefix();
let stores: ChildServer[][] = [];

beforeAll(async () => {
  const dist = buildContentTo(writeFixtureContent());
  stores = await Promise.all([
    startInstances(1, { DIST_DIR: dist, ...LIMITS }),
    startInstances(2, { DIST_DIR: dist, REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix, ...LIMITS }),
  ]);
});
afterAll(async () => {
  await Promise.all(stores.flat().map((s) => s.kill()));
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

/** Request `i` of a burst, sent from `from`. */
type Shape = (i: number, from: string) => RawRequest;

const post =
  (path: string, body: (i: number) => unknown, headers: Record<string, string> = {}): Shape =>
  (i, from) => ({
    method: "POST",
    path,
    headers: { "content-type": "application/json", "x-forwarded-for": from, ...headers },
    body: JSON.stringify(body(i)),
  });
const get =
  (path: string, headers: Record<string, string> = {}): Shape =>
  (_i, from) => ({ method: "GET", path, headers: { "x-forwarded-for": from, ...headers } });

/** Each limit: the request shape, the limit, the status of an admitted request. */
const LIMITED: Array<[string, Shape, number, number, boolean]> = [
  ["free reads (GET /api/demo)", get("/api/demo?vertical=travel"), 30, 200, true],
  ["the free pages (/llms.txt)", get("/llms.txt"), 30, 200, true],
  ["search", get("/api/search?q=visa"), 30, 200, true],
  ["trial keys", post("/api/trial", (i) => ({ agent_id: `net-trial-${i}`, vertical: "travel" })), 5, 200, false],
  ["new identities on the waitlist", post("/api/waitlist", (i) => ({ vertical: "logistics", agent_id: `net-wl-${i}` })), 12, 200, false],
  ["new identities on interest", post("/api/interest", (i) => ({ vertical: "logistics", agent_id: `net-in-${i}` })), 12, 200, false],
  ["anonymous interest signals", post("/api/interest", () => ({ vertical: "logistics" })), 7, 200, false],
  ["wrong admin bearers", get("/api/admin/keys", { authorization: "Bearer wrong-guess" }), 10, 403, false],
];

/** Every spelling of IPv4 host `a.b.c.d`, with and without what a proxy may add. */
function ipv4Spellings(a: number, b: number, c: number, d: number): string[] {
  const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
  const [hi, lo] = [hex(a, b), hex(c, d)];
  const inv = (x: number, y: number) => (~((x << 8) | y) & 0xffff).toString(16);
  return [
    `${a}.${b}.${c}.${d}`,
    `${a}.${b}.${c}.${d}:4711`,
    `::ffff:${a}.${b}.${c}.${d}`,
    `::FFFF:${hi.toUpperCase()}:${lo}`,
    `0:0:0:0:0:ffff:${hi}:${lo}`,
    `0000:0000:0000:0000:0000:ffff:${hi.padStart(4, "0")}:${lo.padStart(4, "0")}`,
    `[::ffff:${a}.${b}.${c}.${d}]:80`,
    `::ffff:0:${a}.${b}.${c}.${d}`,
    `64:ff9b::${hi}:${lo}`,
    `2002:${hi}:${lo}:17::1`,
    `2002:${hi}:${lo}:ffff:abcd::9`,
    `2001:0:4136:e378:8000:${(4711 ^ 0xffff).toString(16)}:${inv(a, b)}:${inv(c, d)}`,
    `2001:0:4136:e378:0:1:${inv(a, b)}:${inv(c, d)}`,
  ];
}

/** Address `i` of the /64 `2001:db8:<n>:<m>::/64`, written the ways an address can be. */
function inSlash64(n: number, m: number, i: number): string {
  const host = [i & 0xffff, (i * 7919) & 0xffff, 0, (i * 104729) & 0xffff].map((g) => g.toString(16));
  const spellings = [
    `2001:db8:${n}:${m}:${host.join(":")}`,
    `2001:DB8:${n}:${m}:${host.join(":").toUpperCase()}`,
    `[2001:db8:${n}:${m}:${host.join(":")}]:443`,
    `2001:0db8:${n.toString().padStart(4, "0")}:${m}:${host[0]}:${host[1]}::${host[3]}`,
    `2001:db8:${n}:${m}::${host[3]}%eth0`,
  ];
  return spellings[i % spellings.length]!;
}

/**
 * One burst over `servers`, request `i` from `from(i)`, then one request from `other`. Requests
 * are numbered from `n * 1000`, so no two tests send the same agent.
 */
async function burst(servers: ChildServer[], n: number, shape: Shape, from: (i: number) => string, other: string) {
  const share = BURST / servers.length;
  const all = await Promise.all(
    servers.map((s, t) => socketBurst(s.url, share, (i) => shape(n * 1000 + t * share + i, from(t * share + i)))),
  );
  const [otherClient] = await socketBurst(servers[0]!.url, 1, () => shape(n * 1000 + BURST, other));
  return { burst: tally(all.flat()), otherClient };
}

let network = 0;

describe.each([
  ["one instance (SQLite)", 0],
  ["two instances on Redis", 1],
] as const)("per-client limits per client network, %s", (_name, index) => {
  const servers = () => stores[index]!;

  it.each(LIMITED)("%s: a burst from 240 addresses of one IPv6 /64 admits exactly the limit", async (_l, shape, limit, ok, perMinute) => {
    if (perMinute) await awayFromMinuteEnd();
    const n = ++network;
    // The neighbouring /64 is another client.
    expect(await burst(servers(), n, shape, (i) => inSlash64(n, 0xa, i), `2001:db8:${n}:b::1`)).toEqual({
      burst: { [ok]: limit, 429: BURST - limit },
      otherClient: ok,
    });
  });

  it.each(LIMITED)(
    "%s: a burst from one IPv4 host written 13 ways (a port, mapped, NAT64, 6to4, Teredo…) admits exactly the limit",
    async (_l, shape, limit, ok, perMinute) => {
      if (perMinute) await awayFromMinuteEnd();
      const n = ++network;
      const spellings = ipv4Spellings(198, 51, 100, n);
      // Another host is another client.
      expect(await burst(servers(), n, shape, (i) => spellings[i % spellings.length]!, `::ffff:198.51.101.${n}`)).toEqual({
        burst: { [ok]: limit, 429: BURST - limit },
        otherClient: ok,
      });
    },
  );

  it("MCP tool calls: a burst from one /64 and one IPv4 host admits exactly the per-minute limit each", async () => {
    const n = ++network;
    const spellings = ipv4Spellings(203, 0, 113, n);
    for (const from of [(i: number) => inSlash64(n, 0xc, i), (i: number) => spellings[i % spellings.length]!]) {
      await awayFromMinuteEnd();
      const call = (i: number) =>
        fetch(`${servers()[i % servers().length]!.url}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "x-forwarded-for": from(i) },
          body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "search", arguments: { q: "visa" } } }),
        }).then(async (res) => {
          const body = await res.text();
          return res.status === 200 && !body.includes('"isError":true') ? "ok" : "limited";
        });
      const outcomes = await Promise.all(Array.from({ length: BURST }, (_, i) => call(i)));
      expect(outcomes.filter((o) => o === "ok")).toHaveLength(30);
    }
  });
});
