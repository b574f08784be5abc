/**
 * Who a card buyer is, and what an unpaid card checkout may hold, over real HTTP against the
 * Stripe and payment-network stand-ins:
 * - an account named by its contact alone (or by nothing) buys more keys by card with its own key;
 * - an unpaid card checkout never blocks the agent that pays first, and one client address holds
 *   at most CARD_PENDING_PER_CLIENT unpaid checkouts (300 at once: exactly the limit admitted);
 * - agent_id and contact are compared as people read them (NFKC, trimmed, case-folded), and ids
 *   with control or format characters are refused with a JSON pointer;
 * - Idempotency-Keys are scoped to the caller, as Stripe scopes them to an account.
 * Each client address is its own `X-Forwarded-For` (TRUST_PROXY), so the tests do not share a
 * pending-checkout budget.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { type StripeStandIn, startStripe, stripeEnv } from "./stand-ins/stripe.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let stripe: StripeStandIn;
let network: AgentNetworkStandIn;
let svc: TestService;
let clients = 0;
beforeAll(async () => {
  [stripe, network] = await Promise.all([startStripe(), startAgentNetwork()]);
  svc = await startPaymentsService({ ...stripeEnv(stripe), ...agentNetworkEnv(network), TRUST_PROXY: "1" });
});
afterAll(async () => {
  await svc?.close();
  await Promise.all([stripe?.close(), network?.close()]);
});

/** A fresh client address per call. */
const client = () => ({ "x-forwarded-for": `198.51.100.${++clients % 250}, 203.0.113.${Math.floor(clients / 250)}` });
const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  svc.request("/api/checkout", { method: "POST", headers: { ...client(), ...headers }, json: body, redirect: "manual" });
const mint = () => network.mint({ now: svc.clock.now(), valueMicros: 100_000_000 });
const payNetwork = async (extra: Record<string, unknown>, headers: Record<string, string> = {}) =>
  buy(checkoutBody("agent_network", extra), { "pay-network-pay-id": await mint(), ...headers });
const webhook = (payload: string) =>
  svc.request("/api/checkout/webhook", {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": stripe.sign(payload, Math.floor(svc.clock.now() / 1000)) },
    body: payload,
  });
const keysOf = (key: string) => svc.request("/api/keys", { headers: { "x-service-key": key } });

/** Pays a card session at Stripe and takes the keys from the success page. */
async function payCard(sessionId: string): Promise<string[]> {
  stripe.pay(sessionId);
  const page = await svc.request(`/checkout/success?session_id=${sessionId}`, { headers: { accept: "application/json" } });
  expect(page.body.status).toBe("keys");
  return page.body.keys.map((k: { key: string }) => k.key);
}

describe("the key names the account", () => {
  it("an account created from a contact alone buys more keys by card with its own key, whatever contact the keys go to", async () => {
    const first = await buy(checkoutBody("card", { contact: "Contact-Only@Example.com" }));
    expect(first.status).toBe(303);
    const [key] = await payCard(first.body.session_id);
    const same = await buy(checkoutBody("card", { contact: "contact-only@example.com" }), { "x-service-key": key! });
    expect(same.status).toBe(303);
    expect(same.body.quote).toMatchObject({ keys_held: 1, per_key_usd_micros: [17_000_000] });
    const elsewhere = await buy(checkoutBody("card", { contact: "colleague@example.com" }), { "x-service-key": key! });
    expect(elsewhere.status).toBe(303);
    // The owner's own open checkout above holds slot 2, so this one is priced as key 3.
    expect(elsewhere.body.quote).toMatchObject({ keys_held: 2, per_key_usd_micros: [15_000_000] });
  });

  it("an account created with neither agent_id nor contact buys more by card with its key", async () => {
    const first = await payNetwork({});
    expect(first.status).toBe(201);
    const more = await buy(checkoutBody("card", { contact: "anon-owner@example.com" }), { "x-service-key": first.body.keys[0].key });
    expect(more.status).toBe(303);
    expect(more.body.quote.keys_held).toBe(1);
  });
});

describe("no free squatting", () => {
  it("an unpaid card checkout for an agent_id does not stop the agent that pays first; the late card payment is not added to that account", async () => {
    const seats = async () => (await svc.request("/api/waitlist")).body.cohorts[0].seats_claimed as number;
    const before = await seats();
    const squat = await buy(checkoutBody("card", { agent_id: "squatted-agent", contact: "squatter@example.com" }));
    expect(squat.status).toBe(303);
    const owner = await payNetwork({ agent_id: "squatted-agent" });
    expect(owner.status).toBe(201);
    // Each would-be new member holds a seat until its purchase ends.
    expect(await seats()).toBe(before + 2);
    // The squatter pays after all: the account is someone else's now, so a refund, not a key in it.
    const late = await webhook(stripe.event("checkout.session.completed", stripe.pay(squat.body.session_id)));
    expect(late.body.outcome).toBe("refund_due");
    // ... and its seat goes back: one account, one seat.
    expect(await seats()).toBe(before + 1);
    const held = await keysOf(owner.body.keys[0].key);
    expect(held.body.plan).toBe("standard");
    const more = await payNetwork({ agent_id: "squatted-agent" }, { "x-service-key": owner.body.keys[0].key });
    expect(more.body.receipt.quote).toMatchObject({ keys_held: 1, per_key_usd_micros: [17_000_000] });
  });

  it("a card checkout for an agent_id that already has an account is refused before Stripe", async () => {
    await payNetwork({ agent_id: "existing-agent" });
    const before = stripe.sessions.length;
    const res = await buy(checkoutBody("card", { agent_id: "existing-agent", contact: "x@example.com" }));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("account_proof_required");
    expect(stripe.sessions.length).toBe(before);
  });

  it("300 card checkouts at once from one client address: exactly CARD_PENDING_PER_CLIENT (5) open a session; paying one frees its place", async () => {
    const from = { "x-forwarded-for": "192.0.2.77" };
    const before = stripe.sessions.length;
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => buy(checkoutBody("card", { contact: `burst-${i}@example.com` }), from)),
    );
    const opened = results.filter((r) => r.status === 303);
    expect(opened).toHaveLength(5);
    expect(results.filter((r) => r.status === 429 && r.body.code === "rate_limited")).toHaveLength(295);
    expect(stripe.sessions.length - before).toBe(5);
    expect((await buy(checkoutBody("card", { contact: "burst-more@example.com" }), from)).status).toBe(429);
    // Paid: no longer pending, so the client may open another.
    expect((await webhook(stripe.event("checkout.session.completed", stripe.pay(opened[0]!.body.session_id)))).body.outcome).toBe(
      "fulfilled",
    );
    expect((await buy(checkoutBody("card", { contact: "burst-after@example.com" }), from)).status).toBe(303);
    // Another client address is not affected.
    expect((await buy(checkoutBody("card", { contact: "burst-other@example.com" }))).status).toBe(303);
  });
});

describe("identifiers compared as people read them", () => {
  it.each([
    ["trailing space", "norm-one", "norm-one "],
    ["upper case", "norm-two", "NORM-TWO"],
    ["fullwidth letters", "norm-three", "ｎｏｒｍ－ｔｈｒｅｅ"],
    ["NBSP for a space", "norm four", "norm\u00a0four"],
    ["combining mark for a precomposed letter", "café-norm", "cafe\u0301-NORM"],
    ["dotless i", "sign-in-norm", "SIGN-\u0131N-NORM"],
    ["dotted capital I", "sign-on-norm", "S\u0130GN-ON-NORM"],
    ["sharp s", "straße-norm", "STRASSE-NORM"],
  ])("%s: the same account, so a stranger needs its key", async (_what, owner, lookalike) => {
    const first = await payNetwork({ agent_id: owner });
    expect(first.status).toBe(201);
    const stranger = await payNetwork({ agent_id: lookalike });
    expect(stranger.status).toBe(403);
    expect(stranger.body.code).toBe("account_proof_required");
    // The owner's key proves the lookalike spelling too.
    expect((await payNetwork({ agent_id: lookalike }, { "x-service-key": first.body.keys[0].key })).status).toBe(201);
  });

  it.each([
    ["zero-width space", "zw\u200bagent"],
    ["zero-width joiner", "zw\u200dagent"],
    ["right-to-left override", "\u202eagent"],
    ["byte order mark", "\ufeffagent"],
    ["C1 control", "c1\u0085agent"],
    ["only spaces", "   "],
  ])("an agent_id with a %s is refused 400 with the pointer, before any payment", async (_what, agentId) => {
    const before = network.charges.length;
    const res = await payNetwork({ agent_id: agentId });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain("/agent_id");
    expect(network.charges.length).toBe(before);
  });

  it("a contact is compared folded too: the same mailbox in another spelling is the same account", async () => {
    const first = await payNetwork({ contact: "Folded.Contact@Example.com" });
    expect(first.status).toBe(201);
    for (const contact of ["folded.contact@example.com", "ＦＯＬＤＥＤ.contact@example.com"])
      expect((await payNetwork({ contact })).body.code).toBe("account_proof_required");
    const zw = await payNetwork({ contact: "folded\u200b.contact@example.com" });
    expect(zw.status).toBe(400);
    expect(zw.body.errors.map((e: { pointer: string }) => e.pointer)).toContain("/contact");
  });

  it("self-referral through a lookalike of one's own agent_id is refused", async () => {
    const first = await payNetwork({ agent_id: "Referrer-Agent" });
    const key = first.body.keys[0].key;
    for (const referred of ["referrer-agent ", "ＲＥＦＥＲＲＥＲ-agent", "referrer\u2011agent".replace("\u2011", "-")]) {
      const res = await svc.request("/api/referral", {
        method: "POST",
        headers: { "x-service-key": key },
        json: { referring_key: key, referred_agent_id: referred },
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("self_referral");
    }
  });
});

describe("Idempotency-Keys are scoped to the caller", () => {
  it("two buyers who pick the same Idempotency-Key each get their own purchase", async () => {
    const headers = { "idempotency-key": "order-1" };
    const alice = await payNetwork({ agent_id: "idem-alice" }, headers);
    const bob = await payNetwork({ agent_id: "idem-bob" }, headers);
    expect(alice.status).toBe(201);
    expect(bob.status).toBe(201);
    expect(bob.body.receipt.purchase_id).not.toBe(alice.body.receipt.purchase_id);
    // Card too: the agent_id scopes it.
    const cardA = await buy(checkoutBody("card", { agent_id: "idem-card-a", contact: "a@example.com" }), { "idempotency-key": "card-1" });
    const cardB = await buy(checkoutBody("card", { agent_id: "idem-card-b", contact: "b@example.com" }), { "idempotency-key": "card-1" });
    expect([cardA.status, cardB.status]).toEqual([303, 303]);
    expect(cardB.body.session_id).not.toBe(cardA.body.session_id);
  });

  it("within one caller the key still names one purchase: the same request replays, another body is 422", async () => {
    const first = await payNetwork({ agent_id: "idem-carol" }, { "idempotency-key": "carol-1" });
    expect(first.status).toBe(201);
    const owner = { "x-service-key": first.body.keys[0].key, "idempotency-key": "carol-2" };
    const token = await mint();
    const body = checkoutBody("agent_network", { agent_id: "idem-carol" });
    const a = await buy(body, { ...owner, "pay-network-pay-id": token });
    const b = await buy(body, { ...owner, "pay-network-pay-id": token });
    expect(a.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.receipt.purchase_id).toBe(a.body.receipt.purchase_id);
    // The account proven by the key scopes it, with or without the agent_id in the body.
    expect((await buy(checkoutBody("agent_network", { quantity: 2 }), { ...owner, "pay-network-pay-id": token })).status).toBe(422);
  });
});
