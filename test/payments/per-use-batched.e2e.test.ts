/**
 * Per-use charges batched per token (PER_USE_CHARGE_BATCH_MS): many retrievals become one
 * charge call, the ledger still never lets a token buy more than its value, a refused batch
 * stops the token, and pending charges go out when the service stops.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { startPaymentsService } from "./start-payments-service.ts";

const BATCH_MS = 150;
let network: AgentNetworkStandIn;
let svc: TestService;
beforeAll(async () => {
  network = await startAgentNetwork();
  svc = await startPaymentsService({ ...agentNetworkEnv(network), PER_USE_CHARGE_BATCH_MS: String(BATCH_MS) });
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
});

const demo = (node: string, token: string) =>
  svc.request(`/api/demo?vertical=travel&node=${node}`, { headers: { "pay-network-pay-id": token } });
const mint = (valueMicros = 100_000) => network.mint({ now: svc.clock.now(), valueMicros });
const jtiOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { jti: string }).jti;
const chargesOf = (token: string) => network.charges.filter((c) => c.jti === jtiOf(token));
/** Waits until the batcher has had time to send (a few intervals) . */
const settle = () => new Promise((r) => setTimeout(r, BATCH_MS * 4));

describe("batched per-use charges", () => {
  it("ten retrievals with one token become one charge call per batch interval, for exactly their price", async () => {
    const token = await mint();
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => demo(`trv-m${(i % 5) + 1}`, token)));
    const elapsed = performance.now() - started;
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results[0]!.headers.get("pay-network-charged")).toBe("0.002000");
    await settle();
    const charges = chargesOf(token);
    // Pending charges go out on a timer that ticks every BATCH_MS from the service's start, not
    // from the first retrieval: `elapsed` holds at most floor(elapsed / BATCH_MS) + 1 ticks, so the
    // retrievals reserved within it fall into at most one batch more than that (two when the ten
    // straddle a tick on a quiet machine, more when a loaded one stretches them); never one call
    // per retrieval.
    expect(charges.length).toBeGreaterThanOrEqual(1);
    expect(charges.length).toBeLessThanOrEqual(Math.min(9, Math.floor(elapsed / BATCH_MS) + 2));
    expect(charges.reduce((sum, c) => sum + c.micros, 0)).toBe(20_000);
  });

  it("the ledger still caps the token: 20 at once on a token worth 5 serve 5 and charge $0.01", async () => {
    const token = await mint(10_000);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => demo(`trv-m${(i % 5) + 1}`, token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 402 && r.body.code === "payment_token_depleted")).toHaveLength(15);
    await settle();
    expect(chargesOf(token).reduce((sum, c) => sum + c.micros, 0)).toBe(10_000);
  });

  it("a burst of 300 on a token worth 37 serves exactly 37 and charges exactly their price", async () => {
    const token = await mint(37 * 2_000);
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => demo(`trv-m${(i % 5) + 1}`, token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(37);
    expect(results.filter((r) => r.status === 402 && r.body.code === "payment_token_depleted")).toHaveLength(263);
    await settle();
    expect(chargesOf(token).reduce((sum, c) => sum + c.micros, 0)).toBe(37 * 2_000);
  });

  it("a batch the network refuses is logged for reconciliation and the token is served nothing more", async () => {
    const token = await mint();
    network.mode = 402;
    try {
      expect((await demo("trv-m1", token)).status).toBe(200); // served before the charge is known
      await settle();
    } finally {
      network.mode = "ok";
    }
    const next = await demo("trv-m2", token);
    expect(next.status).toBe(402);
    expect(next.body.code).toBe("payment_failed");
    expect(svc.logs.some((l) => l.includes("per-use batched charge failed") && l.includes(jtiOf(token)))).toBe(true);
    expect(svc.logs.join("\n")).not.toContain(token);
  });

  it("pending charges are sent when the service stops", async () => {
    // An interval no test outlasts: only the shutdown can send these.
    const slow = await startPaymentsService({ ...agentNetworkEnv(network), PER_USE_CHARGE_BATCH_MS: "60000" });
    const token = await mint();
    for (const node of ["trv-m3", "trv-m4"]) {
      expect((await slow.request(`/api/demo?vertical=travel&node=${node}`, { headers: { "pay-network-pay-id": token } })).status).toBe(200);
    }
    expect(chargesOf(token)).toHaveLength(0);
    await slow.close();
    expect(chargesOf(token)).toEqual([{ jti: jtiOf(token), micros: 4_000 }]);
  });
});
