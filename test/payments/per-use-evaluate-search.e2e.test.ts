/**
 * Per-use pay tokens on POST /api/evaluate and GET /api/search (and their MCP tools)
 * are accepted and charged like GET /api/demo: one retrieval ($0.002) per answer that reads gated
 * layers, nothing for fully open content, never more than the token's value under concurrency.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { rpc } from "../mcp/_setup.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { startPaymentsService } from "./start-payments-service.ts";

let network: AgentNetworkStandIn;
let svc: TestService;
beforeAll(async () => {
  network = await startAgentNetwork();
  svc = await startPaymentsService({ ...agentNetworkEnv(network), PER_USE_CHARGE_BATCH_MS: "0", ANON_RATE_PER_MINUTE: "100000" });
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
});

const mint = (options: Parameters<AgentNetworkStandIn["mint"]>[0] = {}) => network.mint({ now: svc.clock.now(), ...options });
const chargesOf = (token: string) => {
  const jti = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).jti;
  return network.charges.filter((c) => c.jti === jti);
};
const evaluate = (body: unknown, token: string) =>
  svc.request("/api/evaluate", { method: "POST", headers: { "pay-network-pay-id": token }, json: body });
const search = (query: string, token: string) => svc.request(`/api/search?${query}`, { headers: { "pay-network-pay-id": token } });
const GATED_RULES = { vertical: "travel", node: "trv-m1", facts: { condition_a: true, condition_b: false } };

describe("POST /api/evaluate with a per-use token", () => {
  it("evaluates a gated node's rules and charges exactly $0.002", async () => {
    const token = await mint({ valueMicros: 10_000 });
    const res = await evaluate(GATED_RULES, token);
    expect(res.status).toBe(200);
    expect(res.body.outcomes.map((o: { id: string }) => o.id)).toEqual(["outcome_x"]);
    expect(res.headers.get("pay-network-charged")).toBe("0.002000");
    expect(res.headers.get("pay-network-remaining")).toBe("0.008000");
    expect(chargesOf(token)).toEqual([{ jti: expect.any(String), micros: 2000 }]);
  });

  it("fully open nodes are free; a bad token is 402 and nothing is charged", async () => {
    const token = await mint();
    expect((await evaluate({ vertical: "a2a-handoff", node: "a2a-one", facts: {} }, token)).status).toBe(200);
    expect(chargesOf(token)).toEqual([]);
    const before = network.charges.length;
    const bad = await evaluate(GATED_RULES, "not-a-jwt");
    expect(bad.status).toBe(402);
    expect(bad.body.code).toBe("payment_token_invalid");
    expect(network.charges.length).toBe(before);
  });

  it("20 concurrent evaluations on a token worth 5 retrievals: exactly 5 answered, 15 × 402 depleted", async () => {
    const token = await mint({ valueMicros: 10_000 });
    const results = await Promise.all(Array.from({ length: 20 }, () => evaluate(GATED_RULES, token)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 402 && r.body.code === "payment_token_depleted")).toHaveLength(15);
    expect(chargesOf(token).reduce((sum, c) => sum + c.micros, 0)).toBe(10_000);
  });
});

describe("GET /api/search with a per-use token", () => {
  it("searches the gated layers and charges one retrieval per search", async () => {
    const token = await mint({ valueMicros: 10_000 });
    const res = await search("q=skill+text&vertical=travel", token);
    expect(res.status).toBe(200);
    // A gated layer's words are found and quoted, as for a key that unlocks them; anonymous callers get none.
    const gatedSnippet = (r: { snippet: string }) => /(Logic|Directive|Skill|Action) text of trv-m\d/.test(r.snippet);
    expect(res.body.results.some(gatedSnippet), JSON.stringify(res.body)).toBe(true);
    expect((await svc.request("/api/search?q=skill+text&vertical=travel")).body.results.some(gatedSnippet)).toBe(false);
    expect(res.headers.get("pay-network-charged")).toBe("0.002000");
    expect(chargesOf(token)).toHaveLength(1);
    // A search of fully open verticals only reads nothing gated: free.
    expect((await search("q=logic+text&vertical=a2a-handoff", token)).status).toBe(200);
    expect(chargesOf(token)).toHaveLength(1);
  });
});

describe("MCP evaluate_rules and search take the same per-use path", () => {
  it("one charge each", async () => {
    const token = await mint({ valueMicros: 10_000 });
    const evaluated = await rpc(svc, "tools/call", { name: "evaluate_rules", arguments: GATED_RULES }, { "pay-network-pay-id": token });
    expect(evaluated.result.isError).toBeFalsy();
    const found = await rpc(
      svc,
      "tools/call",
      { name: "search", arguments: { q: "skill text", vertical: "travel" } },
      { "pay-network-pay-id": token },
    );
    expect(found.result.isError).toBeFalsy();
    expect(chargesOf(token)).toHaveLength(2);
  });
});
