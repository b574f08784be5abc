/**
 * Grandfathered prices over real HTTP: inaugural members buy with agent-network tokens, `core`
 * opens through the real progression (the last inaugural seat claimed while the mean
 * Proof-of-Outcome is above 0.8), and an inaugural member buying another key is then quoted and
 * charged the inaugural graduated price for its second key ($17), and gets an inaugural key,
 * while a new buyer joins `core` at $49.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, x402Env } from "../payments/stand-ins/x402-facilitator.ts";

let svc: TestService;
let network: AgentNetworkStandIn;
let facilitator: FacilitatorStandIn;
beforeAll(async () => {
  const content = writeFixtureContent(undefined, { memberCaps: { inaugural: 2, core: 4 } });
  [network, facilitator] = await Promise.all([startAgentNetwork(), startFacilitator()]);
  svc = await startTestService(buildContentTo(content), { ...agentNetworkEnv(network), ...x402Env(facilitator) });
});
afterAll(async () => {
  await svc?.close();
  await Promise.all([network?.close(), facilitator?.close()]);
});

const mint = () => network.mint({ now: svc.clock.now(), valueMicros: 500_000_000 });
async function buy(agent: string, key?: string, token?: string) {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers["pay-network-pay-id"] = token;
  if (key) headers["x-service-key"] = key;
  return svc.request("/api/checkout", {
    method: "POST",
    headers,
    json: { vertical: "travel", payment_method: "agent_network", agent_id: agent },
  });
}

describe("grandfathered cohort prices", () => {
  const keys: Record<string, string> = {};

  it("opens core through the real progression once the last inaugural seat is claimed above 0.8", async () => {
    const first = await buy("founder-1", undefined, await mint());
    expect(first.status).toBe(201);
    keys["founder-1"] = first.body.keys[0].key;
    const outcome = await svc.request("/api/telemetry", {
      method: "POST",
      headers: { "x-service-key": keys["founder-1"]! },
      json: { confidence_score: 0.95 },
    });
    expect(outcome.body.cohort).toEqual({ active_cohort: "inaugural", opened: null });
    const second = await buy("founder-2", undefined, await mint());
    expect(second.status).toBe(201);
    expect(second.body.keys[0].cohort).toBe("inaugural");
    expect((await svc.request("/api/status")).body.active_cohort).toBe("core");
    expect(svc.logs.filter((l) => l.includes('"cohort opened"'))).toHaveLength(1);
  });

  it("quotes an inaugural member its own cohort's graduated price after core opened", async () => {
    const quote = await buy("founder-1", keys["founder-1"]);
    expect(quote.status).toBe(200);
    expect(quote.body.quote).toMatchObject({ cohort: "inaugural", keys_held: 1, per_key_usd_micros: [17_000_000], amount: "$17" });
  });

  it("charges it that price and issues an inaugural key", async () => {
    const before = network.charges.length;
    const res = await buy("founder-1", keys["founder-1"], await mint());
    expect(res.status).toBe(201);
    expect(res.body.keys[0].cohort).toBe("inaugural");
    expect(res.body.receipt.quote).toMatchObject({ cohort: "inaugural", per_key_usd_micros: [17_000_000], amount_usd_micros: 17_000_000 });
    expect(network.charges.slice(before).map((c) => c.micros)).toEqual([17_000_000]);
    const detail = await svc.request("/api/keys", { headers: { "x-service-key": res.body.keys[0].key } });
    expect(detail.body.cohort).toBe("inaugural");
    // A member adding keys takes no new seat.
    expect((await svc.request("/api/waitlist")).body.cohorts[0].seats_claimed).toBe(2);
  });

  it("asks the same member price in x402's 402 requirements and settles exactly that", async () => {
    const body = { vertical: "travel", payment_method: "http402", agent_id: "founder-1" };
    const member = { "x-service-key": keys["founder-1"]! };
    const required = await svc.request("/api/checkout", { method: "POST", headers: member, json: body });
    expect(required.status).toBe(402);
    // founder-1 holds two keys: the third inaugural key is $15.
    expect(required.body.quote).toMatchObject({ cohort: "inaugural", keys_held: 2, per_key_usd_micros: [15_000_000] });
    expect(required.body.accepts[0].maxAmountRequired).toBe("15000000");
    const header = await payWith(facilitator.wallet(), 1, required.body.accepts[0]);
    facilitator.calls.length = 0;
    const res = await svc.request("/api/checkout", { method: "POST", headers: { ...member, "x-payment": header }, json: body });
    expect(res.status).toBe(201);
    expect(res.body.keys[0].cohort).toBe("inaugural");
    const settled = facilitator.calls.filter((c) => c.path === "/settle");
    expect(settled.map((c) => c.body.paymentRequirements.maxAmountRequired)).toEqual(["15000000"]);
  });

  it("prices a new buyer at core's $49 and seats it in core", async () => {
    const quote = await buy("newcomer-1");
    expect(quote.body.quote).toMatchObject({ cohort: "core", per_key_usd_micros: [49_000_000] });
    const before = network.charges.length;
    const res = await buy("newcomer-1", undefined, await mint());
    expect(res.status).toBe(201);
    expect(res.body.keys[0].cohort).toBe("core");
    expect(network.charges.slice(before).map((c) => c.micros)).toEqual([49_000_000]);
    const overview = (await svc.request("/api/waitlist")).body;
    expect(overview.cohorts.slice(0, 2).map((c: { seats_claimed: number }) => c.seats_claimed)).toEqual([2, 1]);
  });
});
