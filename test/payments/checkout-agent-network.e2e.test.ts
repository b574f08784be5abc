/**
 * GET /api/checkout and POST /api/checkout with `agent_network`: server-side graduated prices,
 * quantity bounds, the 5-key account cap, charge-before-issue, Idempotency-Key. The JWKS is
 * fetched from the stand-in's URL here (the per-use suite pins it inline).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCreditsStore } from "../../runtime/state/storage/credits-store.ts";
import type { TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let network: AgentNetworkStandIn;
let svc: TestService;
beforeAll(async () => {
  network = await startAgentNetwork();
  svc = await startPaymentsService(agentNetworkEnv(network, true));
});
afterAll(async () => {
  await svc?.close();
  await network?.close();
});

const mint = (valueMicros = 100_000_000, options: Parameters<AgentNetworkStandIn["mint"]>[0] = {}) =>
  network.mint({ now: svc.clock.now(), valueMicros, ...options });
const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  svc.request("/api/checkout", { method: "POST", headers, json: body });

describe("GET /api/checkout", () => {
  it("lists methods with availability, cohort prices with the inaugural graduated tiers, the 5-key cap", async () => {
    const res = await svc.request("/api/checkout");
    expect(res.status).toBe(200);
    expect(res.body.active_cohort).toBe("inaugural");
    expect(Object.fromEntries(res.body.payment_methods.map((m: any) => [m.id, m.available]))).toEqual({
      card: false,
      agent_network: true,
      http402: false,
    });
    const inaugural = res.body.pricing.cohorts.find((c: any) => c.name === "inaugural");
    expect(inaugural.graduated.map((g: any) => g.price)).toEqual(["$19", "$17", "$15", "$13", "$11"]);
    expect(res.body.pricing.cohorts.map((c: any) => c.price)).toEqual(["$19", "$49", "$99", "$149", "$199"]);
    expect(res.body.pricing.max_keys_per_account).toBe(5);
    expect(res.body.pricing.per_use).toMatchObject({ price_usd_micros: 2000, price: "$0.002" });
    expect(res.body.loyalty_credit.credits.inaugural.credit).toBe("$1.90");
  });
});

describe("POST /api/checkout agent_network", () => {
  it.each([[0], [6], [2.5], ["3"]])("quantity %j → 400, nothing charged", async (quantity) => {
    const before = network.charges.length;
    const res = await buy(checkoutBody("agent_network", { quantity }), { "pay-network-pay-id": await mint() });
    expect(res.status).toBe(400);
    expect(network.charges.length).toBe(before);
  });

  it("400 for an unknown method or vertical, and for a fully open vertical", async () => {
    expect((await buy({ vertical: "travel", payment_method: "cash" })).status).toBe(400);
    expect((await buy(checkoutBody("agent_network", { vertical: "atlantis" }))).body.code).toBe("vertical_unknown");
    expect((await buy(checkoutBody("agent_network", { vertical: "traversal" }))).body.code).toBe("vertical_not_allowed");
  });

  let buyerOneKey = "";
  it("quantity 1 charges $19 and returns one key in the admin issuance shape; the key works", async () => {
    const token = await mint();
    const res = await buy(checkoutBody("agent_network", { quantity: 1, agent_id: "buyer-one" }), { "pay-network-pay-id": token });
    buyerOneKey = res.body.keys[0].key;
    expect(res.body.receipt.account).toBe("buyer-one");
    expect(res.status).toBe(201);
    expect(res.body.keys).toHaveLength(1);
    expect(res.body.keys[0]).toMatchObject({ type: "membership", vertical: "travel", cohort: "inaugural", status: "active" });
    expect(res.body.receipt.quote).toMatchObject({ amount_usd_micros: 19_000_000, keys_held: 0, per_key_usd_micros: [19_000_000] });
    expect(network.charges.at(-1)!.micros).toBe(19_000_000);
    const node = await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": res.body.keys[0].key } });
    expect(node.status).toBe(200);
  });

  it("graduated prices follow the account's existing keys (1 held + 2 = $17 + $15), then the cap refuses a 6th before charging", async () => {
    const token = await mint();
    const owner = { "pay-network-pay-id": token, "x-service-key": buyerOneKey };
    const two = await buy(checkoutBody("agent_network", { quantity: 2, agent_id: "buyer-one" }), owner);
    expect(two.status).toBe(201);
    expect(two.body.receipt.quote).toMatchObject({
      keys_held: 1,
      per_key_usd_micros: [17_000_000, 15_000_000],
      amount_usd_micros: 32_000_000,
    });
    // The key alone names the account: agent_id may be left out.
    const two2 = await buy(checkoutBody("agent_network", { quantity: 2 }), owner);
    expect(two2.body.receipt.quote.per_key_usd_micros).toEqual([13_000_000, 11_000_000]);
    expect(two2.body.receipt.account).toBe("buyer-one");
    const before = network.charges.length;
    const sixth = await buy(checkoutBody("agent_network", { agent_id: "buyer-one" }), owner);
    expect(sixth.status).toBe(409);
    expect(network.charges.length).toBe(before);
  });

  it("two checkouts racing for an account's last slot: one 201, the other 409, and the loser is never charged", async () => {
    const agent = "racer-one";
    const first = await buy(checkoutBody("agent_network", { quantity: 4, agent_id: agent }), { "pay-network-pay-id": await mint() });
    expect(first.status).toBe(201);
    const [a, b] = await Promise.all([mint(), mint()]);
    const raced = await Promise.all(
      [a, b].map((token) =>
        buy(checkoutBody("agent_network", { agent_id: agent }), { "pay-network-pay-id": token, "x-service-key": first.body.keys[0].key }),
      ),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(raced.find((r) => r.status === 409)!.body.code).toBe("conflict");
    const jtis = [a, b].map((t) => (JSON.parse(Buffer.from(t.split(".")[1]!, "base64url").toString("utf8")) as { jti: string }).jti);
    expect(network.charges.filter((c) => jtis.includes(c.jti))).toHaveLength(1);
  });

  it("quantity 5 for a new account costs $75 and puts it on the volume plan", async () => {
    const res = await buy(checkoutBody("agent_network", { quantity: 5, contact: "five@example.com" }), {
      "pay-network-pay-id": await mint(),
    });
    expect(res.status).toBe(201);
    expect(res.body.receipt.quote.amount_usd_micros).toBe(75_000_000);
    expect(res.body.keys.every((k: any) => k.plan === "volume")).toBe(true);
  });

  it.each([
    ["garbage token", async () => "nope", "payment_token_invalid"],
    ["kya-only token", async () => mint(100_000_000, { typ: "kya+jwt" }), "payment_token_required"],
    ["expired token", async () => mint(100_000_000, { expiresIn: -300 }), "payment_token_expired"],
    // A token that names no environment could be a sandbox token.
    ["token without an env claim", async () => mint(100_000_000, { omit: ["env"] }), "payment_token_invalid"],
    ["sandbox token", async () => mint(100_000_000, { claims: { env: "sandbox" } }), "payment_token_invalid"],
    ["token worth less than the price", async () => mint(5_000_000), "payment_token_depleted"],
  ])("402 and nothing issued or charged: %s", async (_name, make, code) => {
    const token = await make();
    const before = network.charges.length;
    const res = await buy(checkoutBody("agent_network", { agent_id: `fail-${code}` }), { "pay-network-pay-id": token });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe(code);
    expect(network.charges.length).toBe(before);
    expect((await svc.request("/api/checkout")).status).toBe(200);
  });

  it("a refused charge is 402 and issues nothing; the account can still buy afterwards", async () => {
    network.mode = 402;
    try {
      const res = await buy(checkoutBody("agent_network", { agent_id: "refused" }), { "pay-network-pay-id": await mint() });
      expect(res.status).toBe(402);
      expect(res.body.code).toBe("payment_failed");
      expect(res.body).not.toHaveProperty("keys");
    } finally {
      network.mode = "ok";
    }
    const ok = await buy(checkoutBody("agent_network", { agent_id: "refused" }), { "pay-network-pay-id": await mint() });
    expect(ok.body.receipt.quote.keys_held).toBe(0);
  });

  it("Idempotency-Key: a retry returns the first 201 (same keys, one charge); another body under the key is 422", async () => {
    const token = await mint();
    const headers = { "pay-network-pay-id": token, "idempotency-key": "retry-me-1" };
    const before = network.charges.length;
    const first = await buy(checkoutBody("agent_network", { agent_id: "idem-buyer" }), headers);
    const again = await buy(checkoutBody("agent_network", { agent_id: "idem-buyer" }), headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(network.charges.length).toBe(before + 1);
    const other = await buy(checkoutBody("agent_network", { agent_id: "idem-buyer", quantity: 2 }), headers);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe("idempotency_key_reused");
  });

  it("methods this deployment has not configured: card and http402 POST → 503, the Stripe webhook → 404", async () => {
    const card = await buy(checkoutBody("card", { contact: "nocard@example.com" }));
    expect(card.status).toBe(503);
    expect(card.body.code).toBe("payment_provider_unavailable");
    expect((await buy(checkoutBody("http402"))).status).toBe(503);
    const hook = await svc.request("/api/checkout/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" },
      body: "{}",
    });
    expect(hook.status).toBe(404);
  });

  it("the quote shows the account's referral/loyalty credit balance, which is not deducted from a purchase", async () => {
    const first = await buy(checkoutBody("agent_network", { agent_id: "credited-buyer" }), { "pay-network-pay-id": await mint() });
    const credits = createCreditsStore(svc.service.deps.backend);
    await credits.grant(
      { grantId: "test-credit-1", account: "credited-buyer", kind: "referral", amountUsdMicros: 1_500_000, reason: "test" },
      svc.clock.now(),
    );
    const res = await buy(checkoutBody("agent_network", { agent_id: "credited-buyer" }), {
      "pay-network-pay-id": await mint(),
      "x-service-key": first.body.keys[0].key,
    });
    expect(res.body.receipt.quote).toMatchObject({ amount_usd_micros: 17_000_000, credit_balance_usd_micros: 1_500_000 });
  });

  it("Idempotency-Key: parallel retries charge once", async () => {
    const token = await mint();
    const headers = { "pay-network-pay-id": token, "idempotency-key": "parallel-1" };
    const before = network.charges.length;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => buy(checkoutBody("agent_network", { agent_id: "idem-par" }), headers)),
    );
    expect(results.filter((r) => r.status === 201).length).toBeGreaterThanOrEqual(1);
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === "idempotency_in_progress"))).toBe(true);
    expect(network.charges.length).toBe(before + 1);
  });
});
