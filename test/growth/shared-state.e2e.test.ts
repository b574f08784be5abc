/**
 * Two instances on one Redis: waitlist positions, interest dedupe, the referral credit cap, the
 * Proof-of-Outcome daily cap and a cohort transition stay exact when requests are spread over both
 * (the multi-instance backend of the runtime, not just SQLite in one process).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCreditsStore } from "../../runtime/state/storage/credits-store.ts";
import { deletePrefix, SHARED_REDIS_URL, uniquePrefix } from "../cluster/_cluster.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";

let a: TestService;
let b: TestService;
let network: AgentNetworkStandIn;
const prefix = uniquePrefix();
beforeAll(async () => {
  const content = writeFixtureContent(undefined, { memberCaps: { inaugural: 4 } });
  const dist = buildContentTo(content);
  network = await startAgentNetwork();
  const env = { REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix, ...agentNetworkEnv(network) };
  [a, b] = await Promise.all([startTestService(dist, env), startTestService(dist, env)]);
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await network?.close();
  await deletePrefix(SHARED_REDIS_URL, prefix);
});

const both = () => [a, b] as const;
const pick = (i: number) => both()[i % 2]!;

describe("growth state shared by two instances on Redis", () => {
  it("gives exact, distinct waitlist positions and one position per agent across instances", async () => {
    const joins = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        pick(i).request("/api/waitlist", { method: "POST", json: { vertical: "logistics", agent_id: `shared-${i % 15}` } }),
      ),
    );
    const byAgent = new Map<string, number>();
    for (const [i, r] of joins.entries()) {
      expect(r.status).toBe(200);
      const agent = `shared-${i % 15}`;
      if (byAgent.has(agent)) expect(r.body.position).toBe(byAgent.get(agent));
      else byAgent.set(agent, r.body.position);
    }
    expect([...byAgent.values()].sort((x, y) => x - y)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect((await b.request("/api/status")).body.verticals.logistics.waitlist_registered).toBe(15);
  });

  it("counts an agent's interest once across instances", async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        pick(i).request("/api/interest", { method: "POST", json: { vertical: "hrm", agent_id: `fan-${i % 7}` } }),
      ),
    );
    expect((await a.request("/api/interest/summary")).body.verticals[0]).toMatchObject({ vertical: "hrm", signals: 7 });
  });

  it("counts each trial key's Proof-of-Value once across instances", async () => {
    const trial = (await a.request("/api/trial", { method: "POST", json: { agent_id: "redis-trial" } })).body.key;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        pick(i).request("/api/telemetry/pov", {
          method: "POST",
          headers: { "x-service-key": trial },
          json: { trial_key: trial, confidence_score: 0.9 },
        }),
      ),
    );
    expect(answers.filter((r) => r.body.replaced === false)).toHaveLength(1);
    expect((await b.request("/api/status")).body.community_evidence.trial_evaluations).toBe(1);
  });

  it("opens core once and credits each inaugural member once when seats fill on both instances", async () => {
    // One outcome above 0.8 first, so the seat claim that fills the cohort opens the next tier.
    const member = (
      await b.request("/api/keys", {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        json: { vertical: "travel", agent_id: "redis-member-0" },
      })
    ).body.keys[0].key;
    expect(
      (await b.request("/api/telemetry", { method: "POST", headers: { "x-service-key": member }, json: { confidence_score: 0.95 } }))
        .status,
    ).toBe(200);
    // redis-member-0 holds 1 of the 4 seats; 4 more accounts race for the last 3.
    await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        pick(i).request("/api/keys", {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_KEY}` },
          json: { vertical: "travel", agent_id: `redis-member-${i + 1}` },
        }),
      ),
    );
    const overview = (await a.request("/api/waitlist")).body;
    expect(overview.active_cohort).toBe("core");
    // The cap holds across instances: four inaugural seats, the fifth account seated in core.
    expect([overview.cohorts[0].seats_claimed, overview.cohorts[1].seats_claimed]).toEqual([4, 1]);
    const credits = createCreditsStore(a.service.deps.backend);
    for (const account of ["redis-member-0", "redis-member-1", "redis-member-2", "redis-member-3", "redis-member-4"]) {
      const loyalty = (await credits.list(account)).filter((e) => e.kind === "loyalty");
      expect(loyalty.length).toBeLessThanOrEqual(1);
    }
    const credited = await Promise.all(
      ["redis-member-0", "redis-member-1", "redis-member-2", "redis-member-3", "redis-member-4"].map(async (m) =>
        (await credits.list(m)).some((e) => e.kind === "loyalty"),
      ),
    );
    expect(credited.filter(Boolean)).toHaveLength(overview.cohorts[0].seats_claimed);
    expect([...a.logs, ...b.logs].filter((l) => l.includes('"cohort opened"'))).toHaveLength(1);
  });

  it("admits exactly OUTCOMES_PER_KEY_DAY Proof-of-Outcome submissions of one key per day across instances", async () => {
    const limit = a.service.deps.config.outcomesPerKeyDay;
    const key = (
      await a.request("/api/keys", {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        json: { vertical: "travel", agent_id: "redis-outcome-racer" },
      })
    ).body.keys[0].key;
    const before = (await a.request("/api/waitlist")).body.progression.outcome_submissions;
    const answers = await Promise.all(
      Array.from({ length: limit + 10 }, (_, i) =>
        pick(i).request("/api/telemetry", { method: "POST", headers: { "x-service-key": key }, json: { confidence_score: 0.9 } }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(limit);
    expect(answers.filter((r) => r.status === 429 && r.body.code === "outcome_limit_reached")).toHaveLength(10);
    expect((await b.request("/api/waitlist")).body.progression.outcome_submissions).toBe(before + limit);
  });
  it("never credits more than 4 referrals per cycle across instances, however the referred agents' payments interleave", async () => {
    const key = (
      await a.request("/api/keys", {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        json: { vertical: "travel", agent_id: "redis-referrer" },
      })
    ).body.keys[0].key;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        pick(i).request("/api/referral", {
          method: "POST",
          headers: { "x-service-key": key },
          json: { referring_key: key, referred_agent_id: `redis-friend-${i}` },
        }),
      ),
    );
    expect(answers.every((r) => r.body.referral?.status === "pending")).toBe(true);
    const tokens = await Promise.all(Array.from({ length: 12 }, () => network.mint({ now: a.clock.now(), valueMicros: 50_000_000 })));
    const paid = await Promise.all(
      tokens.map((token, i) =>
        pick(i).request("/api/checkout", {
          method: "POST",
          headers: { "pay-network-pay-id": token },
          json: { vertical: "travel", payment_method: "agent_network", agent_id: `redis-friend-${i}` },
        }),
      ),
    );
    expect(paid.every((r) => r.status === 201)).toBe(true);
    expect(await createCreditsStore(a.service.deps.backend).balance("redis-referrer")).toBe(6_000_000);
    expect(await createCreditsStore(b.service.deps.backend).list("redis-referrer")).toHaveLength(4);
  });
});
