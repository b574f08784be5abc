/**
 * The inaugural member cap is a cap, over real HTTP on a real port, on the embedded SQLite store
 * and on Redis (two instances): with 899 of 900 seats claimed through admin issuance and the next
 * cohort closed (no Proof-of-Outcome yet), 50 concurrent first purchases admit exactly one new
 * member and the payment network sees exactly one charge; the other 49 are refused 409
 * `cohort_full` before anything is charged. A new buyer whose payment is refused gives its seat
 * back. /api/waitlist and /api/status agree on the seats claimed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";

const CAP = 900;
const BURST = 50;

describe.each([
  ["the embedded SQLite store", 1, null],
  ["Redis, two instances", 2, uniquePrefix()],
] as const)("the inaugural cap on %s", (_name, instances, redisPrefix) => {
  let services: TestService[] = [];
  let network: AgentNetworkStandIn;
  beforeAll(async () => {
    network = await startAgentNetwork();
    const dist = buildContentTo(writeFixtureContent());
    const env = { ...agentNetworkEnv(network), ...(redisPrefix ? { REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: redisPrefix } : {}) };
    services = await Promise.all(Array.from({ length: instances }, () => startTestService(dist, env)));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(services.map((s) => s.close()));
    await network?.close();
    if (redisPrefix) await deletePrefix(SHARED_REDIS_URL, redisPrefix);
  });
  const pick = (i: number) => services[i % services.length]!;
  const buy = (i: number, agent: string, token: string) =>
    pick(i).request("/api/checkout", {
      method: "POST",
      headers: { "pay-network-pay-id": token },
      json: { vertical: "travel", payment_method: "agent_network", agent_id: agent },
    });
  const seats = async () => {
    const [overview, status] = await Promise.all([pick(0).request("/api/waitlist"), pick(1).request("/api/status")]);
    return {
      waitlist: overview.body.cohorts[0].seats_claimed as number,
      registered: overview.body.seats_registered as number,
      status: status.body.total_inaugural_registered as number,
      remaining: status.body.inaugural_seats_remaining as number,
      active: status.body.active_cohort as string,
    };
  };

  it("fills 899 seats through admin issuance", async () => {
    for (let start = 0; start < CAP - 1; start += 25) {
      const batch = Array.from({ length: Math.min(25, CAP - 1 - start) }, (_, j) => start + j);
      const answers = await Promise.all(
        batch.map((i) =>
          pick(i).request("/api/keys", {
            method: "POST",
            headers: { authorization: `Bearer ${ADMIN_KEY}` },
            json: { vertical: "travel", agent_id: `seated-${i}` },
          }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(batch.map(() => 201));
    }
    expect(await seats()).toEqual({ waitlist: CAP - 1, registered: CAP - 1, status: CAP - 1, remaining: 1, active: "inaugural" });
  }, 300_000);

  it("gives the seat of a new buyer whose payment is refused back", async () => {
    const before = network.charges.length;
    // A token worth less than $19: its ledger refuses the amount, the purchase is released.
    const poor = await network.mint({ now: pick(0).clock.now(), valueMicros: 1_000_000 });
    const refused = await buy(0, "short-of-money", poor);
    expect(refused.status).toBe(402);
    expect(network.charges.length).toBe(before);
    expect((await seats()).waitlist).toBe(CAP - 1);
  });

  it(`admits exactly one of ${BURST} concurrent first purchases for the last seat and charges nobody else`, async () => {
    const before = network.charges.length;
    const tokens = await Promise.all(
      Array.from({ length: BURST }, () => network.mint({ now: pick(0).clock.now(), valueMicros: 100_000_000 })),
    );
    const answers = await Promise.all(tokens.map((token, i) => buy(i, `burst-buyer-${i}`, token)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(BURST - 1);
    const refusals = answers.filter((a) => a.status === 409);
    for (const r of refusals) {
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.body).toMatchObject({ code: "cohort_full", cohort: "inaugural", waitlist: "/api/waitlist" });
    }
    expect(answers.find((a) => a.status === 201)!.body.keys[0].cohort).toBe("inaugural");
    expect(network.charges.length - before).toBe(1);
    expect(await seats()).toEqual({ waitlist: CAP, registered: CAP, status: CAP, remaining: 0, active: "inaugural" });
  }, 120_000);

  it("still sells more keys to an existing member while the cohort is full", async () => {
    const member = await pick(0).request("/api/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      json: { vertical: "travel", agent_id: "seated-0" },
    });
    expect(member.status).toBe(201);
    const before = network.charges.length;
    const res = await pick(1).request("/api/checkout", {
      method: "POST",
      headers: {
        "pay-network-pay-id": await network.mint({ now: pick(0).clock.now(), valueMicros: 100_000_000 }),
        "x-service-key": member.body.keys[0].key,
      },
      json: { vertical: "travel", payment_method: "agent_network" },
    });
    expect(res.status).toBe(201);
    expect(res.body.receipt.quote).toMatchObject({ cohort: "inaugural", keys_held: 2, per_key_usd_micros: [15_000_000] });
    expect(network.charges.length - before).toBe(1);
    expect((await seats()).waitlist).toBe(CAP);
  });
});
