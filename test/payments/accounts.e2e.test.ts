/**
 * Accounts are owned, and money moves reserve → charge → issue. Over real HTTP against the agent payment network's stand-in:
 * - a stranger naming an existing member's agent_id is refused before any payment, and the owner's
 *   price tier, slots and plan are untouched;
 * - concurrent purchases never charge a buyer who gets no key, and graduated prices stay exact;
 * - a checkout that carries no payment is a quote (200), as the spec lists.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

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

const mint = (valueMicros = 100_000_000) => network.mint({ now: svc.clock.now(), valueMicros });
const jtiOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { jti: string }).jti;
const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  svc.request("/api/checkout", { method: "POST", headers, json: body });
const keyDetails = (key: string) => svc.request("/api/keys", { headers: { "x-service-key": key } });

async function member(agent: string, quantity = 1) {
  const res = await buy(checkoutBody("agent_network", { agent_id: agent, quantity }), { "pay-network-pay-id": await mint() });
  expect(res.status).toBe(201);
  return res.body.keys.map((k: { key: string }) => k.key) as string[];
}

describe("accounts are owned", () => {
  it("a stranger naming an existing member's agent_id is refused 403 before any payment; the owner's tier, slots and plan are untouched", async () => {
    const [ownerKey] = await member("owned-agent");
    const token = await mint();
    const before = network.charges.length;
    const stranger = await buy(checkoutBody("agent_network", { agent_id: "owned-agent", quantity: 4 }), { "pay-network-pay-id": token });
    expect(stranger.status).toBe(403);
    expect(stranger.body.code).toBe("account_proof_required");
    expect(stranger.body.hint).toMatch(/X-Service-Key/);
    // The same name in another case is the same account.
    expect((await buy(checkoutBody("agent_network", { agent_id: "OWNED-Agent" }), { "pay-network-pay-id": token })).body.code).toBe(
      "account_proof_required",
    );
    expect(network.charges.length).toBe(before);
    expect((await keyDetails(ownerKey!)).body.plan).toBe("standard");
    // The owner still buys key 2 at $17, and then 3 more fill the account (volume plan for all).
    const owner = { "pay-network-pay-id": await mint(), "x-service-key": ownerKey! };
    const second = await buy(checkoutBody("agent_network", { agent_id: "owned-agent" }), owner);
    expect(second.body.receipt.quote.per_key_usd_micros).toEqual([17_000_000]);
    const rest = await buy(checkoutBody("agent_network", { quantity: 3 }), owner);
    expect(rest.status).toBe(201);
    expect((await keyDetails(ownerKey!)).body.plan).toBe("volume");
  });

  it("proof must be a live membership key of that very account: trial 403, another account's key 403, revoked 401", async () => {
    const [mine] = await member("proof-owner");
    const [theirs] = await member("proof-other");
    const trial = await svc.request("/api/trial", { method: "POST", json: { agent_id: "proof-owner" } });
    const body = checkoutBody("agent_network", { agent_id: "proof-owner" });
    const token = await mint();
    expect((await buy(body, { "pay-network-pay-id": token, "x-service-key": trial.body.key })).body.code).toBe("account_proof_required");
    expect((await buy(body, { "pay-network-pay-id": token, "x-service-key": theirs! })).body.code).toBe("account_proof_required");
    const id = (await keyDetails(mine!)).body.id;
    await svc.request("/api/admin/keys/revoke", {
      method: "POST",
      headers: { authorization: "Bearer test-admin-secret-0123456789" },
      json: { id },
    });
    const revoked = await buy(body, { "pay-network-pay-id": token, "x-service-key": mine! });
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe("key_revoked");
  });

  it("two first purchases racing for one new agent_id: one creates the account, the other is refused uncharged", async () => {
    const tokens = await Promise.all([mint(), mint(), mint()]);
    const raced = await Promise.all(
      tokens.map((t) => buy(checkoutBody("agent_network", { agent_id: "raced-new-agent" }), { "pay-network-pay-id": t })),
    );
    expect(raced.map((r) => r.status).sort()).toEqual([201, 403, 403]);
    expect(network.charges.filter((c) => tokens.map(jtiOf).includes(c.jti))).toHaveLength(1);
  });

  it("a purchase with no agent_id or contact creates an account of its own, which its key can buy into later", async () => {
    const first = await buy(checkoutBody("agent_network"), { "pay-network-pay-id": await mint() });
    expect(first.status).toBe(201);
    expect(first.body.receipt.account).toMatch(/^acct_[0-9a-f]{24}$/);
    const more = await buy(checkoutBody("agent_network"), { "pay-network-pay-id": await mint(), "x-service-key": first.body.keys[0].key });
    expect(more.body.receipt).toMatchObject({
      account: first.body.receipt.account,
      quote: { keys_held: 1, per_key_usd_micros: [17_000_000] },
    });
  });
});

describe("reserve, then charge, then issue", () => {
  it("an account with 1 key and 8 concurrent single-key buys on one token: exactly 4 issued at 17+15+13+11 = $56, 4 refused uncharged", async () => {
    const [ownerKey] = await member("burst-owner");
    const token = await mint(500_000_000);
    const jti = jtiOf(token);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        buy(checkoutBody("agent_network", { agent_id: "burst-owner" }), { "pay-network-pay-id": token, "x-service-key": ownerKey! }),
      ),
    );
    const issued = results.filter((r) => r.status === 201);
    expect(issued).toHaveLength(4);
    expect(results.filter((r) => r.status === 409 && r.body.code === "conflict")).toHaveLength(4);
    expect(issued.map((r) => r.body.receipt.quote.per_key_usd_micros[0]).sort((a: number, b: number) => b - a)).toEqual([
      17_000_000, 15_000_000, 13_000_000, 11_000_000,
    ]);
    const charges = network.charges.filter((c) => c.jti === jti);
    expect(charges.map((c) => c.micros).sort((a, b) => b - a)).toEqual([17_000_000, 15_000_000, 13_000_000, 11_000_000]);
    expect(charges.reduce((sum, c) => sum + c.micros, 0)).toBe(56_000_000);
  });

  it("a refused charge gives the reservation back: the same slot (and price) is free for the next purchase", async () => {
    const [ownerKey] = await member("refused-owner");
    network.mode = 402;
    try {
      const refused = await buy(checkoutBody("agent_network"), { "pay-network-pay-id": await mint(), "x-service-key": ownerKey! });
      expect(refused.body.code).toBe("payment_failed");
    } finally {
      network.mode = "ok";
    }
    const next = await buy(checkoutBody("agent_network"), { "pay-network-pay-id": await mint(), "x-service-key": ownerKey! });
    expect(next.body.receipt.quote.per_key_usd_micros).toEqual([17_000_000]);
  });
});

describe("POST /api/checkout without payment is a quote (200)", () => {
  it("agent_network without a token: 200 with this account's graduated price, the cohort and how to pay with each method; nothing reserved", async () => {
    const quote = await buy(checkoutBody("agent_network", { quantity: 2 }));
    expect(quote.status).toBe(200);
    expect(quote.body).toMatchObject({
      object: "checkout_quote",
      vertical: "travel",
      quote: { cohort: "inaugural", keys_held: 0, per_key_usd_micros: [19_000_000, 17_000_000], amount_usd_micros: 36_000_000 },
    });
    expect(quote.body.payment_options.map((m: { id: string }) => m.id)).toEqual(["card", "agent_network", "http402"]);
    expect(quote.body.payment_options.find((m: { id: string }) => m.id === "agent_network").available).toBe(true);

    const [ownerKey] = await member("quoted-owner");
    expect((await buy(checkoutBody("agent_network", { agent_id: "quoted-owner" }))).body.code).toBe("account_proof_required");
    const own = await buy(checkoutBody("agent_network", { quantity: 3 }), { "x-service-key": ownerKey! });
    expect(own.body.quote).toMatchObject({ keys_held: 1, per_key_usd_micros: [17_000_000, 15_000_000, 13_000_000] });
    // A quote reserves nothing: the owner can still buy 4 more.
    expect(
      (await buy(checkoutBody("agent_network", { quantity: 4 }), { "x-service-key": ownerKey!, "pay-network-pay-id": await mint() }))
        .status,
    ).toBe(201);
  });
});
