/**
 * Referrals over real HTTP: a referral is logged `pending` and
 * earns its $1.50 only when the referred agent becomes a paying member (a checkout paid through the
 * agent payment network's stand-in), at most 4 per cycle; invented agents never earn anything;
 * trial keys may refer; members, self and repeats are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, type TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";
import { checkoutBody, startPaymentsService } from "../payments/start-payments-service.ts";

let network: AgentNetworkStandIn;
let svc: TestService;
beforeAll(async () => {
  network = await startAgentNetwork();
  svc = await startPaymentsService(agentNetworkEnv(network));
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
});

async function memberKey(agent: string | null, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await svc.request("/api/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    json: { vertical: "travel", ...(agent ? { agent_id: agent } : {}), ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.keys[0].key;
}
/** The referred agent pays for a membership by agent-network token. */
async function pays(agent: string) {
  const res = await svc.request("/api/checkout", {
    method: "POST",
    headers: { "pay-network-pay-id": await network.mint({ now: svc.clock.now(), valueMicros: 50_000_000 }) },
    json: checkoutBody("agent_network", { agent_id: agent }),
  });
  expect(res.status).toBe(201);
  return res.body.keys[0].key as string;
}
const refer = (key: string | null, body: Record<string, unknown>) =>
  svc.request("/api/referral", { method: "POST", headers: key ? { "x-service-key": key } : {}, json: body });
const credits = async (key: string) => (await svc.request("/api/keys", { headers: { "x-service-key": key } })).body.credits;
let n = 0;
const fresh = () => `referred-agent-${++n}`;

describe("POST /api/referral", () => {
  it("logs a pending referral with no credit; the $1.50 is credited when the referred agent pays, once", async () => {
    const key = await memberKey("referrer-1");
    const res = await refer(key, { referring_key: key, referred_agent_id: "friend-1", method: "agent-to-agent" });
    expect(res.status).toBe(200);
    expect(res.body.referral).toMatchObject({
      referred_agent_id: "friend-1",
      method: "agent-to-agent",
      status: "pending",
      credited_usd_micros: 0,
      cycle: null,
      qualified_at: null,
    });
    expect(res.body.referral.id).toMatch(/^ref_/);
    expect(res.body.credit_balance).toEqual({ usd_micros: 0, amount: "$0", applies: "next_renewal" });
    expect(JSON.stringify(res.body)).not.toContain(key);

    const friendKey = await pays("friend-1");
    expect((await credits(key)).balance_usd_micros).toBe(1_500_000);
    expect((await credits(key)).granted).toEqual([
      expect.objectContaining({ kind: "referral", amount_usd_micros: 1_500_000, reason: "referral of friend-1" }),
    ]);
    // The friend buying more keys does not credit again.
    await svc.request("/api/checkout", {
      method: "POST",
      headers: { "x-service-key": friendKey, "pay-network-pay-id": await network.mint({ now: svc.clock.now(), valueMicros: 50_000_000 }) },
      json: checkoutBody("agent_network"),
    });
    expect((await credits(key)).balance_usd_micros).toBe(1_500_000);
  });

  it("an invented referred_agent_id that never pays earns nothing", async () => {
    const key = await memberKey("referrer-inventor");
    for (let i = 0; i < 3; i++)
      expect((await refer(key, { referring_key: key, referred_agent_id: `invented-${i}` })).body.referral.status).toBe("pending");
    expect((await credits(key)).balance_usd_micros).toBe(0);
  });

  it("credits at most 4 per cycle ($6) as referred agents pay; the fifth is cap_reached; the next cycle credits again", async () => {
    const key = await memberKey("referrer-2");
    const referred = Array.from({ length: 5 }, fresh);
    for (const agent of referred)
      expect((await refer(key, { referring_key: key, referred_agent_id: agent, method: "volume-broadcast" })).status).toBe(200);
    for (const agent of referred) await pays(agent);
    expect((await credits(key)).balance_usd_micros).toBe(6_000_000);
    const next = await refer(key, { referring_key: key, referred_agent_id: fresh() });
    expect(next.body.cycle).toMatchObject({ id: "2026-11", referrals_credited: 4, max_credited: 4 });
    // December is a new billing cycle.
    svc.clock.advance(10 * 86_400_000);
    await pays(next.body.referral.referred_agent_id);
    expect((await credits(key)).balance_usd_micros).toBe(7_500_000);
  });

  it("never credits more than 4 when ten referred agents pay at once", async () => {
    const key = await memberKey("referrer-racer");
    const referred = Array.from({ length: 10 }, fresh);
    for (const agent of referred) await refer(key, { referring_key: key, referred_agent_id: agent });
    await Promise.all(referred.map(pays));
    expect((await credits(key)).balance_usd_micros).toBe(6_000_000);
    expect((await credits(key)).granted).toHaveLength(4);
  });

  it("a trial key may refer; the credit waits in the trial agent's account and shows once that agent is a member", async () => {
    const trial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "trial-referrer" } })).body.key;
    const res = await refer(trial, { referring_key: trial, referred_agent_id: "trial-friend" });
    expect(res.status).toBe(200);
    expect(res.body.referral.status).toBe("pending");
    await pays("trial-friend");
    const membership = await pays("trial-referrer");
    expect((await credits(membership)).balance_usd_micros).toBe(1_500_000);
  });

  it("refuses to refer an agent that is already a member (409) or was already referred, by anyone (409)", async () => {
    const a = await memberKey("referrer-3");
    const b = await memberKey("referrer-4");
    await memberKey("existing-member");
    const member = await refer(a, { referring_key: a, referred_agent_id: "Existing-Member" });
    expect(member.status).toBe(409);
    expect(member.body.code).toBe("already_member");
    expect((await refer(a, { referring_key: a, referred_agent_id: "popular-agent" })).status).toBe(200);
    const again = await refer(a, { referring_key: a, referred_agent_id: "popular-agent" });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("already_referred");
    expect((await refer(b, { referring_key: b, referred_agent_id: "Popular-Agent" })).body.code).toBe("already_referred");
  });

  it("refuses self-referral (400), by agent_id or contact account", async () => {
    const key = await memberKey("selfish-agent");
    const res = await refer(key, { referring_key: key, referred_agent_id: "selfish-agent" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("self_referral");
    const byContact = await memberKey(null, { contact: "me@example.com" });
    expect((await refer(byContact, { referring_key: byContact, referred_agent_id: "ME@example.com" })).body.code).toBe("self_referral");
  });

  it("requires referring_key to be the caller's own key (403)", async () => {
    const mine = await memberKey("referrer-5");
    const theirs = await memberKey("referrer-6");
    const res = await refer(mine, { referring_key: theirs, referred_agent_id: fresh() });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("key_mismatch");
  });

  it("401 for no key and a bad key", async () => {
    expect((await refer(null, { referring_key: "x", referred_agent_id: fresh() })).body.code).toBe("key_missing");
    const bad = "svc_live_" + "W".repeat(22);
    expect((await refer(bad, { referring_key: bad, referred_agent_id: fresh() })).body.code).toBe("key_invalid");
  });

  it.each([
    [{ referred_agent_id: "a" }, "/referring_key"],
    [{ referring_key: "K" }, "/referred_agent_id"],
    [{ referring_key: "K", referred_agent_id: "a", method: "email-blast" }, "/method"],
    [{ referring_key: "K", referred_agent_id: "" }, "/referred_agent_id"],
    [{ referring_key: "K", referred_agent_id: "a", bonus: 1 }, "/bonus"],
  ])("400 for %j", async (body, pointer) => {
    const key = await memberKey(`referrer-v-${pointer}`);
    const res = await refer(key, JSON.parse(JSON.stringify(body).replace('"K"', JSON.stringify(key))));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it("keeps credit per account: every key of one account shares the balance", async () => {
    const res = await svc.request("/api/keys", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
      json: { vertical: "travel", agent_id: "two-key-account", quantity: 2 },
    });
    const [k1, k2] = res.body.keys.map((k: { key: string }) => k.key);
    const [f1, f2] = [fresh(), fresh()];
    await refer(k1, { referring_key: k1, referred_agent_id: f1 });
    await refer(k2, { referring_key: k2, referred_agent_id: f2 });
    await pays(f1);
    await pays(f2);
    expect((await credits(k1)).balance_usd_micros).toBe(3_000_000);
    expect((await credits(k2)).balance_usd_micros).toBe(3_000_000);
  });
});
