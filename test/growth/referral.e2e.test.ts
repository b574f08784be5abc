/** Referrals over real HTTP: ownership of the key, self and repeat referrals, the 4-per-cycle credit cap. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(async () => void (svc = await startTestService(buildContentTo(writeFixtureContent()))));
afterAll(() => svc?.close());

async function memberKey(agent: string | null, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical: "travel", ...(agent ? { agent_id: agent } : {}), ...extra } });
  expect(res.status).toBe(201);
  return res.body.keys[0].key;
}
const refer = (key: string | null, body: Record<string, unknown>) =>
  svc.request("/api/referral", { method: "POST", headers: key ? { "x-service-key": key } : {}, json: body });
let n = 0;
const fresh = () => `referred-agent-${++n}`;

describe("POST /api/referral", () => {
  it("logs a referral and credits $1.50 to the member's balance", async () => {
    const key = await memberKey("referrer-1");
    const res = await refer(key, { referring_key: key, referred_agent_id: "friend-1", method: "agent-to-agent" });
    expect(res.status).toBe(200);
    expect(res.body.referral).toMatchObject({ referred_agent_id: "friend-1", method: "agent-to-agent", status: "credited", credited_usd_micros: 1_500_000, credited: "$1.50", cycle: "2026-11" });
    expect(res.body.referral.id).toMatch(/^ref_/);
    expect(res.body.credit_balance).toEqual({ usd_micros: 1_500_000, amount: "$1.50", applies: "next_renewal" });
    expect(res.body.cycle).toEqual({ id: "2026-11", referrals_credited: 1, max_credited: 4, credit_cap_usd_micros: 6_000_000 });
    expect(JSON.stringify(res.body)).not.toContain(key);
  });

  it("credits at most 4 per cycle ($6); the fifth is logged with 0; the next cycle credits again", async () => {
    const key = await memberKey("referrer-2");
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await refer(key, { referring_key: key, referred_agent_id: fresh(), method: "volume-broadcast" }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.body.referral.credited_usd_micros)).toEqual([1_500_000, 1_500_000, 1_500_000, 1_500_000, 0]);
    expect(answers[4]!.body.referral).toMatchObject({ status: "cap_reached", credited: "$0" });
    expect(answers[4]!.body.credit_balance.usd_micros).toBe(6_000_000);
    expect(answers[4]!.body.cycle.referrals_credited).toBe(4);
    // December is a new billing cycle.
    svc.clock.advance(10 * 86_400_000);
    const december = await refer(key, { referring_key: key, referred_agent_id: fresh(), method: "principal-redirect" });
    expect(december.body.referral).toMatchObject({ cycle: "2026-12", credited_usd_micros: 1_500_000 });
    expect(december.body.credit_balance).toMatchObject({ usd_micros: 7_500_000, amount: "$7.50" });
  });

  it("never credits more than 4 under concurrency", async () => {
    const key = await memberKey("referrer-racer");
    const answers = await Promise.all(Array.from({ length: 10 }, () => refer(key, { referring_key: key, referred_agent_id: fresh() })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.referral.status === "credited")).toHaveLength(4);
    const last = await refer(key, { referring_key: key, referred_agent_id: fresh() });
    expect(last.body.credit_balance.usd_micros).toBe(6_000_000);
  });

  it("refuses a second referral of the same agent, by anyone (409)", async () => {
    const a = await memberKey("referrer-3");
    const b = await memberKey("referrer-4");
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

  it("401 for no key, a bad key and a trial key", async () => {
    expect((await refer(null, { referring_key: "x", referred_agent_id: fresh() })).body.code).toBe("key_missing");
    const bad = "svc_live_" + "W".repeat(22);
    expect((await refer(bad, { referring_key: bad, referred_agent_id: fresh() })).body.code).toBe("key_invalid");
    const trial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "trial-referrer" } })).body.key;
    const res = await refer(trial, { referring_key: trial, referred_agent_id: fresh() });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("membership_required");
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
    const res = await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical: "travel", agent_id: "two-key-account", quantity: 2 } });
    const [k1, k2] = res.body.keys.map((k: { key: string }) => k.key);
    await refer(k1, { referring_key: k1, referred_agent_id: fresh() });
    const second = await refer(k2, { referring_key: k2, referred_agent_id: fresh() });
    expect(second.body.credit_balance.usd_micros).toBe(3_000_000);
    expect(second.body.cycle.referrals_credited).toBe(2);
  });
});
