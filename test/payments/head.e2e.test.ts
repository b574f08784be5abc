/**
 * HEAD is never metered or charged (h3 answers HEAD with the GET handler): on every metered GET
 * route a HEAD checks access like a GET, then consumes nothing — no trial call, no quota, no
 * per-use charge. Each case ends with a GET to show the same counter does move for content.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, type TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { startPaymentsService } from "./start-payments-service.ts";

let network: AgentNetworkStandIn;
let svc: TestService;
let trial: string;
let member: string;

beforeAll(async () => {
  network = await startAgentNetwork();
  // Each retrieval waits for its own charge here (the batched default has its own suites).
  svc = await startPaymentsService({ ...agentNetworkEnv(network), PER_USE_CHARGE_BATCH_MS: "0" });
  trial = (await svc.request("/api/trial", { method: "POST", json: { agent_id: "head-agent", vertical: "travel" } })).body.key;
  const issued = await svc.request("/api/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    json: { vertical: "travel" },
  });
  member = issued.body.keys[0].key;
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
});

const usedBy = async (key: string) => (await svc.request("/api/keys", { headers: { "x-service-key": key } })).body.usage;
const head = (path: string, headers: Record<string, string>) => fetch(`${svc.url}${path}`, { method: "HEAD", headers });

describe("HEAD on metered routes", () => {
  it("GET /api/demo: a trial key's calls are not spent by HEAD", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await head("/api/demo?vertical=travel&node=trv-m2", { "x-service-key": trial });
      expect(res.status).toBe(200);
      expect(Number(res.headers.get("content-length"))).toBeGreaterThan(100);
      expect(await res.text()).toBe("");
    }
    expect(await usedBy(trial)).toMatchObject({ hour: 0, total_trial: 0 });
    expect((await svc.request("/api/demo?vertical=travel&node=trv-m2", { headers: { "x-service-key": trial } })).status).toBe(200);
    expect(await usedBy(trial)).toMatchObject({ hour: 1, total_trial: 1 });
  });

  it("GET /api/demo: a pay token is verified but not charged by HEAD", async () => {
    const token = await network.mint({ now: svc.clock.now(), valueMicros: 10_000 });
    const jti = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).jti;
    const res = await head("/api/demo?vertical=travel&node=trv-m3", { "pay-network-pay-id": token });
    expect(res.status).toBe(200);
    expect(res.headers.get("pay-network-charged")).toBeNull();
    expect(network.charges.filter((c) => c.jti === jti)).toEqual([]);
    // Access is still checked: a forged token gets the same refusal as on GET.
    const forged = await svc.request("/api/demo?vertical=travel&node=trv-m3", { headers: { "pay-network-pay-id": "not-a-jwt" } });
    expect(forged.body.code).toBe("payment_token_invalid");
    expect((await head("/api/demo?vertical=travel&node=trv-m3", { "pay-network-pay-id": "not-a-jwt" })).status).toBe(forged.status);
    const got = await svc.request("/api/demo?vertical=travel&node=trv-m3", { headers: { "pay-network-pay-id": token } });
    expect(got.headers.get("pay-network-charged")).toBe("0.002000");
    expect(network.charges.filter((c) => c.jti === jti)).toHaveLength(1);
  });

  it("/browse node pages, GET /api/search and GET /v1/delta: HEAD consumes nothing", async () => {
    const before = await usedBy(member);
    for (const path of ["/browse/travel/trv-m4", "/api/search?q=delay&vertical=travel", "/v1/delta?vertical=travel"]) {
      const res = await head(path, { "x-service-key": member });
      expect(res.status, path).toBe(200);
    }
    expect((await usedBy(member)).hour).toBe(before.hour);
    for (const path of ["/browse/travel/trv-m4", "/api/search?q=delay&vertical=travel", "/v1/delta?vertical=travel"]) {
      expect((await svc.request(path, { headers: { "x-service-key": member } })).status, path).toBe(200);
    }
    expect((await usedBy(member)).hour).toBe(before.hour + 3);
  });
});
