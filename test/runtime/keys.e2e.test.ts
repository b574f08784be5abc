/** Admin issuance, key details, verification and the status object over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
beforeAll(async () => void (svc = await startTestService(buildContentTo(writeFixtureContent()))));
afterAll(() => svc?.close());

const issue = (body: unknown, auth: string | null = `Bearer ${ADMIN_KEY}`) =>
  svc.request("/api/keys", { method: "POST", headers: auth ? { authorization: auth } : {}, json: body });

describe("POST /api/keys (admin)", () => {
  it("401 without Authorization, 403 with a wrong bearer", async () => {
    expect((await issue({ vertical: "travel" }, null)).body.code).toBe("admin_auth_missing");
    const wrong = await issue({ vertical: "travel" }, "Bearer nope");
    expect(wrong.status).toBe(403);
    expect(wrong.body.code).toBe("admin_auth_invalid");
  });
  it("201 with up to 5 keys, each shown once, stored only as a hash", async () => {
    const res = await issue({ vertical: "travel", quantity: 5, label: "batch", agent_id: "acct-1", permanent: true });
    expect(res.status).toBe(201);
    expect(res.body.keys).toHaveLength(5);
    for (const k of res.body.keys) {
      expect(k.key).toMatch(/^svc_live_[0-9A-Za-z]{22}$/);
      expect(k).toMatchObject({
        type: "membership",
        vertical: "travel",
        label: "batch",
        permanent: true,
        plan: "volume",
        cohort: "inaugural",
      });
      expect(k.quota.daily_limit).toBe(3000);
      expect(k.quota.monthly_pooled).toBe(true);
    }
    expect(res.headers.get("cache-control")).toBe("no-store");
    const sixth = await issue({ vertical: "travel", agent_id: "acct-1" });
    expect(sixth.status).toBe(409);
  });
  it("never gives an account a sixth key when issuances race (5 × 201, the rest 409)", async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => issue({ vertical: "travel", agent_id: "racing-acct" })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 409 && a.body.code === "conflict")).toHaveLength(7);
  });
  it.each([
    [{ vertical: "travel", quantity: 0 }],
    [{ vertical: "travel", quantity: 6 }],
    [{ vertical: "atlantis" }],
    [{ vertical: "travel", extra: 1 }],
    [{}],
  ])("400 for %j", async (body) => {
    const res = await issue(body);
    expect(res.status).toBe(400);
    expect(["validation_failed", "vertical_unknown"]).toContain(res.body.code);
  });
});

describe("GET /api/keys and GET /api/verify", () => {
  it("describe the presented key by header or ?key=, 404 unknown, 401 none", async () => {
    const key = (await issue({ vertical: "all", label: "ops" })).body.keys[0].key;
    const viaHeader = await svc.request("/api/keys", { headers: { "x-service-key": key } });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body).toMatchObject({ status: "active", type: "membership", vertical: "all", label: "ops", permanent: false });
    expect(viaHeader.body).not.toHaveProperty("hash");
    const viaQuery = await svc.request(`/api/keys?key=${key}`);
    expect(viaQuery.body.id).toBe(viaHeader.body.id);
    expect((await svc.request("/api/keys", { headers: { "x-service-key": "svc_live_" + "B".repeat(22) } })).status).toBe(404);
    expect((await svc.request("/api/keys")).status).toBe(401);
    // The key must never reach the logs, even when sent in the URL.
    expect(svc.logs.join("\n")).not.toContain(key);
    expect(svc.logs.join("\n")).toContain("key=%5Bredacted%5D");
  });
  it("verify: valid keys with access and quota; invalid ones 200 valid:false with a reason; no key 401", async () => {
    const key = (await issue({ vertical: "travel" })).body.keys[0].key;
    const ok = await svc.request("/api/verify", { headers: { "x-service-key": key } });
    expect(ok.body).toMatchObject({ valid: true, type: "membership", expires_at: null });
    expect(ok.body.vertical_access).toEqual(expect.arrayContaining(["travel", "ai-compliance", "a2a-handoff"]));
    expect(ok.body.vertical_access).not.toContain("real-estate");
    expect(ok.body.remaining_quota.hour).toBe(200);
    expect((await svc.request("/api/verify", { headers: { "x-service-key": "svc_live_" + "C".repeat(22) } })).body).toMatchObject({
      valid: false,
      reason: "unknown",
    });
    expect((await svc.request("/api/verify", { headers: { "x-service-key": "nonsense" } })).body).toMatchObject({
      valid: false,
      reason: "malformed",
    });
    expect((await svc.request("/api/verify")).status).toBe(401);
  });
});

describe("GET /api/status", () => {
  it("has every field of the spec's status object with computed counts", async () => {
    const res = await svc.request("/api/status");
    expect(res.status).toBe(200);
    const s = res.body;
    expect(s).toMatchObject({
      object: "system_status",
      api_version: "0.9.23",
      active_cohort: "inaugural",
      inaugural_member_cap: 900,
      inaugural_status: "open",
    });
    expect(s.ai_compliance.node_count).toBe(2);
    expect(s.ai_compliance.accepts).toEqual(["ai-compliance", "ethics"]);
    expect(s.travel).toMatchObject({ module_count: 7, trial_modules: 5 });
    expect(Object.keys(s.verticals)).toHaveLength(15);
    expect(s.cohort_structure.inaugural).toEqual({ member_cap: 900, price: "$19" });
    expect(s.retrieval_limits).toEqual({
      per_key_monthly: 10000,
      volume_monthly_5_keys: 50000,
      hourly_rate_limit: 200,
      daily_standard: 1000,
      daily_scale: 3000,
      overage_per_call: 0.002,
    });
    expect(s.total_inaugural_registered + s.inaugural_seats_remaining).toBe(900);
    expect(Number.isNaN(Date.parse(s.timestamp))).toBe(false);
  });
  it("serves /openapi.json (version = api_version) and /docs", async () => {
    const doc = await (await fetch(svc.url + "/openapi.json")).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("0.9.23");
    const html = await (await fetch(svc.url + "/docs")).text();
    expect(html).toContain("/api/demo");
    expect(html).toContain('id="problem-quota_exceeded"');
  });
});
