/**
 * Secrets at rest and in logs: after issuing trial and membership keys and using them every way
 * the API allows (header, ?key=, bearer), and after buying keys through the agent payment network
 * under an Idempotency-Key and through x402 and replaying both (which hands the keys back, so the
 * answers are saved), the state store's files contain no key in clear, nor the Idempotency-Key or
 * the payment signature the saved answers are sealed under; no log line contains a key or the
 * admin secret, and responses carry the JSON-API security headers.
 */

import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, x402Env } from "../payments/stand-ins/x402-facilitator.ts";

let svc: TestService;
let network: AgentNetworkStandIn;
let facilitator: FacilitatorStandIn;
const keys: string[] = [];
/** The secrets saved checkout answers are sealed under: never at rest in clear either. */
const sealingSecrets: string[] = [];

beforeAll(async () => {
  network = await startAgentNetwork();
  facilitator = await startFacilitator();
  svc = await startTestService(buildContentTo(writeFixtureContent()), { ...agentNetworkEnv(network, true), ...x402Env(facilitator) });
  keys.push((await svc.request("/api/trial", { method: "POST", json: { agent_id: "hygiene" } })).body.key);
  const issued = await svc.request("/api/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    json: { vertical: "travel", quantity: 3 },
  });
  keys.push(...issued.body.keys.map((k: { key: string }) => k.key));
  for (const key of keys) {
    await svc.request("/api/demo?vertical=ai-compliance&node=aic-start", { headers: { "x-service-key": key } });
    await svc.request(`/api/keys?key=${key}`);
    await svc.request("/api/verify", { headers: { authorization: `Bearer ${key}`, "x-service-key": key } });
  }
  await svc.request("/api/keys", { method: "POST", headers: { authorization: "Bearer wrong-admin-guess" }, json: { vertical: "travel" } });
  await buyAndReplayCheckouts();
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
  await facilitator?.close();
});

/** Checkouts whose 201 is saved for replay: agent network under an Idempotency-Key, and x402. */
async function buyAndReplayCheckouts() {
  const buy = (json: Record<string, unknown>, headers: Record<string, string> = {}) =>
    svc.request("/api/checkout", { method: "POST", headers, json });

  const idempotencyKey = `hygiene-idem-${randomUUID()}`;
  const networkBody = { vertical: "travel", payment_method: "agent_network", agent_id: "hygiene-network", quantity: 2 };
  const networkHeaders = {
    "pay-network-pay-id": await network.mint({ now: svc.clock.now(), valueMicros: 100_000_000 }),
    "idempotency-key": idempotencyKey,
  };
  const bought = await buy(networkBody, networkHeaders);
  const replayed = await buy(networkBody, networkHeaders);
  expect(bought.status).toBe(201);
  expect(replayed.headers.get("idempotent-replayed")).toBe("true");
  expect(replayed.body.keys).toEqual(bought.body.keys);
  keys.push(...bought.body.keys.map((k: { key: string }) => k.key));
  sealingSecrets.push(idempotencyKey);

  const x402Body = { vertical: "travel", payment_method: "http402", agent_id: "hygiene-x402" };
  const required = await buy(x402Body);
  expect(required.status).toBe(402);
  const header = await payWith(facilitator.wallet(), 1, required.body.accepts[0]);
  const paid = await buy(x402Body, { "x-payment": header });
  const again = await buy(x402Body, { "x-payment": header });
  expect(paid.status).toBe(201);
  expect(again.status).toBe(201);
  expect(again.body.keys).toEqual(paid.body.keys);
  keys.push(...paid.body.keys.map((k: { key: string }) => k.key));
  x402Signature = JSON.parse(Buffer.from(header, "base64").toString("utf8")).payload.signature;
}

/**
 * The x402 signature is a sealing secret too, but issue 39 requires the signed payment to stay in
 * the purchase record while its settle is open, so that a lost settle can be asked again instead of
 * giving keys away: its bytes may survive in the database file's free pages after the purchase is
 * final. What holds: no live record carries it once the purchase is final (docs/payments.md,
 * "What the store holds").
 */
let x402Signature = "";

describe("secret hygiene", () => {
  it("stores keys only as hashes", () => {
    const dir = svc.service.deps.config.dataDir;
    const bytes = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString("latin1"))
      .join("\n");
    expect(bytes.length).toBeGreaterThan(0);
    expect(keys).toHaveLength(1 + 3 + 2 + 1);
    for (const key of keys) {
      expect(bytes).not.toContain(key);
      expect(bytes).not.toContain(key.slice(-22));
    }
    for (const secret of sealingSecrets) expect(bytes).not.toContain(secret);
    expect(bytes).not.toContain(ADMIN_KEY);
  });
  it("keeps an x402 signature in no live record once its purchase is final", async () => {
    expect(x402Signature).toMatch(/^0x[0-9a-f]{130}$/);
    const records = svc.service.deps.backend.records;
    const live = await Promise.all((await records.getKeys("purchase:")).map((k) => records.getItem(k)));
    expect(live.length).toBeGreaterThan(0);
    expect(JSON.stringify(live)).not.toContain(x402Signature);
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
    const preflight = await fetch(svc.url + "/api/demo", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-headers": "x-service-key" },
    });
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
