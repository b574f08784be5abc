/** Quotas over real HTTP: the hourly limit with its headers, exact admission under concurrency, trial cap and expiry. */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let dist: string;
let svc: TestService | undefined;
beforeAll(() => void (dist = buildContentTo(writeFixtureContent())));
afterEach(async () => {
  await svc?.close();
  svc = undefined;
});

const issue = async (s: TestService, body: Record<string, unknown> = { vertical: "travel" }) =>
  (await s.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: body })).body.keys[0]
    .key as string;
const get = (s: TestService, key: string, q = "vertical=travel&node=trv-m1") =>
  s.request(`/api/demo?${q}`, { headers: { "x-service-key": key } });

describe("hourly limit", () => {
  it("admits 200 calls an hour, then 429 with Retry-After and RateLimit headers, and resets with the hour", async () => {
    svc = await startTestService(dist);
    const key = await issue(svc);
    for (let i = 1; i <= 200; i++) {
      const res = await get(svc, key);
      expect(res.status).toBe(200);
      if (i === 1) expect(res.headers.get("ratelimit")).toBe('"hour";r=199;t=1800');
    }
    const denied = await get(svc, key);
    expect(denied.status).toBe(429);
    expect(denied.body.code).toBe("quota_exceeded");
    expect(denied.body.window).toBe("hour");
    expect(denied.headers.get("retry-after")).toBe("1800");
    expect(denied.headers.get("ratelimit")).toBe('"hour";r=0;t=1800');
    const details = await svc.request("/api/keys", { headers: { "x-service-key": key } });
    expect(details.body.usage).toMatchObject({ hour: 200, day: 200, month: 200, overage_calls: 0 });
    svc.clock.advance(1800 * 1000);
    expect((await get(svc, key)).status).toBe(200);
  });

  it("never over-admits: 300 simultaneous requests on a fresh key give exactly 200 successes", async () => {
    svc = await startTestService(dist);
    const key = await issue(svc);
    const results = await Promise.all(Array.from({ length: 300 }, () => get(svc!, key)));
    const counts = results.reduce<Record<number, number>>((acc, r) => ((acc[r.status] = (acc[r.status] ?? 0) + 1), acc), {});
    expect(counts).toEqual({ 200: 200, 429: 100 });
    const details = await svc.request("/api/keys", { headers: { "x-service-key": key } });
    expect(details.body.usage.hour).toBe(200);
  });

  it("does not meter a 304", async () => {
    svc = await startTestService(dist);
    const key = await issue(svc);
    const first = await get(svc, key);
    const again = await svc.request("/api/demo?vertical=travel&node=trv-m1", {
      headers: { "x-service-key": key, "if-none-match": first.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    expect((await svc.request("/api/keys", { headers: { "x-service-key": key } })).body.usage.hour).toBe(1);
  });
});

describe("trial keys", () => {
  it("stop at 500 calls in total with 429 trial_exhausted", async () => {
    svc = await startTestService(dist, { RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 10_000, daily_standard: 10_000 }) });
    const key = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "cap-agent", vertical: "travel" } })).body.key;
    const statuses = await Promise.all(Array.from({ length: 520 }, () => get(svc!, key).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(500);
    const last = await get(svc, key);
    expect(last.status).toBe(429);
    expect(last.body.code).toBe("trial_exhausted");
  });

  it("expire after 24 hours: key_expired (401 on rules, the free view with the warning on a node), and verify says so", async () => {
    svc = await startTestService(dist);
    const trial = await svc.request("/api/trial", { method: "POST", json: { agent_id: "expiring-agent" } });
    expect(trial.status).toBe(200);
    expect(trial.body).toMatchObject({ type: "trial", vertical: "ai-compliance", calls_limit: 500 });
    expect(Date.parse(trial.body.expires_at) - svc.clock.now()).toBe(24 * 3600 * 1000);
    expect((await get(svc, trial.body.key, "vertical=ai-compliance&node=aic-start")).status).toBe(200);
    svc.clock.advance(24 * 3600 * 1000);
    const expired = await get(svc, trial.body.key, "vertical=ai-compliance&node=aic-start");
    expect([expired.status, expired.headers.get("credential-problem")]).toEqual([200, "key_expired"]);
    expect(expired.body.node.locked_layers).toHaveLength(4);
    const rules = await svc.request("/api/evaluate", {
      method: "POST",
      headers: { "x-service-key": trial.body.key },
      json: { vertical: "ai-compliance", node: "aic-start", facts: {} },
    });
    expect([rules.status, rules.body.code]).toEqual([401, "key_expired"]);
    const verify = await svc.request("/api/verify", { headers: { "x-service-key": trial.body.key } });
    expect(verify.body).toMatchObject({ valid: false, reason: "expired" });
  });

  it("one active trial per agent and vertical (409), other vertical allowed, bad vertical 400", async () => {
    svc = await startTestService(dist);
    const body = { agent_id: "dup-agent", vertical: "travel" };
    expect((await svc.request("/api/trial", { method: "POST", json: body })).status).toBe(200);
    const again = await svc.request("/api/trial", { method: "POST", json: body });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("trial_exists");
    expect((await svc.request("/api/trial", { method: "POST", json: { agent_id: "dup-agent", vertical: "ethics" } })).status).toBe(200);
    const bad = await svc.request("/api/trial", { method: "POST", json: { agent_id: "x", vertical: "legal" } });
    expect(bad.status).toBe(400);
    const missing = await svc.request("/api/trial", { method: "POST", json: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].pointer).toBe("/agent_id");
  });
});

describe("anonymous callers", () => {
  it("are limited per client address per minute (configurable), with Retry-After", async () => {
    svc = await startTestService(dist, { ANON_RATE_PER_MINUTE: "3" });
    for (let i = 0; i < 3; i++) expect((await svc.request("/api/demo?vertical=travel")).status).toBe(200);
    const limited = await svc.request("/api/demo?vertical=travel");
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.headers.get("retry-after")).toBe("60");
    svc.clock.advance(60_000);
    expect((await svc.request("/api/demo?vertical=travel")).status).toBe(200);
  });
});
