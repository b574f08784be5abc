/**
 * Secrets at rest and in logs: after issuing trial and membership keys and using them every way
 * the API allows (header, ?key=, bearer), the state store's files contain no key in clear, no log
 * line contains a key or the admin secret, and responses carry the JSON-API security headers.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;
const keys: string[] = [];

beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  keys.push((await svc.request("/api/trial", { method: "POST", json: { agent_id: "hygiene" } })).body.key);
  const issued = await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical: "travel", quantity: 3 } });
  keys.push(...issued.body.keys.map((k: { key: string }) => k.key));
  for (const key of keys) {
    await svc.request("/api/demo?vertical=ai-compliance&node=aic-start", { headers: { "x-service-key": key } });
    await svc.request(`/api/keys?key=${key}`);
    await svc.request("/api/verify", { headers: { authorization: `Bearer ${key}`, "x-service-key": key } });
  }
  await svc.request("/api/keys", { method: "POST", headers: { authorization: "Bearer wrong-admin-guess" }, json: { vertical: "travel" } });
});
afterAll(() => svc?.close());

describe("secret hygiene", () => {
  it("stores keys only as hashes", () => {
    const dir = svc.service.deps.config.dataDir;
    const bytes = readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString("latin1")).join("\n");
    expect(bytes.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(bytes).not.toContain(key);
      expect(bytes).not.toContain(key.slice(-22));
    }
    expect(bytes).not.toContain(ADMIN_KEY);
  });
  it("never logs a key, a key secret or the admin secret", () => {
    const logs = svc.logs.join("\n");
    expect(logs.length).toBeGreaterThan(0);
    for (const key of keys) expect(logs).not.toContain(key.slice(-22));
    expect(logs).not.toContain(ADMIN_KEY);
    expect(logs).not.toContain("wrong-admin-guess");
  });
  it("sends security headers suited to a JSON API and never reflects an Origin", async () => {
    const res = await fetch(svc.url + "/api/status", { headers: { origin: "https://evil.example" } });
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    const preflight = await fetch(svc.url + "/api/demo", { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-headers": "x-service-key" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")).toContain("X-Service-Key");
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });
  it("answers unexpected failures without internals", async () => {
    const res = await svc.request("/api/demo?vertical=travel&node=%E0%A4%A");
    expect(res.status).toBeLessThan(500);
    expect(res.text).not.toMatch(/at .*\.ts:\d+|node_modules|Error:/);
  });
});
