/**
 * POST /api/checkout with `card` against a Stripe-compatible stand-in, and the signed webhook
 * POST /api/checkout/webhook: 303 to the session, keys issued once per paid session, whatever
 * Stripe replays, duplicates or reorders.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { type RelayStandIn, startMailRelay } from "./stand-ins/mail-relay.ts";
import { type StripeStandIn, startStripe, stripeEnv } from "./stand-ins/stripe.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let stripe: StripeStandIn;
let relay: RelayStandIn;
let svc: TestService;
beforeAll(async () => {
  stripe = await startStripe();
  relay = await startMailRelay();
  // Every test opens sessions from one address and leaves some unpaid; the per-client limit has its own suite (card-buyers).
  svc = await startPaymentsService({ ...stripeEnv(stripe, relay.url), CARD_PENDING_PER_CLIENT: "1000" });
});
afterAll(async () => {
  await svc?.close();
  await stripe?.close();
  await relay?.close();
});

const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  svc.request("/api/checkout", { method: "POST", headers, json: body, redirect: "manual" });
const nowSeconds = () => Math.floor(svc.clock.now() / 1000);
const deliver = (payload: string, signature: string | null) =>
  svc.request("/api/checkout/webhook", {
    method: "POST",
    headers: { "content-type": "application/json", ...(signature === null ? {} : { "stripe-signature": signature }) },
    body: payload,
  });
const deliverSigned = (payload: string, timestamp = nowSeconds()) => deliver(payload, stripe.sign(payload, timestamp));
const keysDeliveredTo = (contact: string) => relay.messages.filter((m) => m.to === contact).flatMap((m) => m.keys);

/** Starts a card checkout for a fresh contact and returns the session Stripe created. */
async function openSession(contact: string, quantity = 1) {
  const res = await buy(checkoutBody("card", { contact, quantity }));
  expect(res.status).toBe(303);
  return { res, session: stripe.sessions.at(-1)!.session };
}

describe("POST /api/checkout card", () => {
  it("GET lists card as available", async () => {
    const info = await svc.request("/api/checkout");
    expect(info.body.payment_methods.find((m: any) => m.id === "card").available).toBe(true);
  });

  it.each([
    ["no contact", {}],
    ["an invalid email", { contact: "not-an-email" }],
    ["quantity 0", { contact: "q@example.com", quantity: 0 }],
    ["quantity 6", { contact: "q@example.com", quantity: 6 }],
    ["quantity 2.5", { contact: "q@example.com", quantity: 2.5 }],
    ['quantity "3"', { contact: "q@example.com", quantity: "3" }],
  ])("400 for %s, and Stripe is not called", async (_name, extra) => {
    const before = stripe.sessions.length;
    const res = await buy(checkoutBody("card", extra));
    expect(res.status).toBe(400);
    expect(stripe.sessions.length).toBe(before);
  });

  it("303 to the session URL (also in the body); Stripe got a subscription session with our price, contact, reference and an Idempotency-Key", async () => {
    const { res, session } = await openSession("buyer@example.com", 2);
    expect(res.headers.get("location")).toBe(session.url);
    expect(res.body).toMatchObject({ url: session.url, session_id: session.id, payment_method: "card" });
    expect(res.body.quote).toMatchObject({ amount_usd_micros: 36_000_000, per_key_usd_micros: [19_000_000, 17_000_000] });
    const recorded = stripe.sessions.at(-1)!;
    expect(recorded.params).toMatchObject({
      mode: "subscription",
      customer_email: "buyer@example.com",
      client_reference_id: res.body.checkout_id,
      "line_items[0][quantity]": "1",
      "line_items[0][price_data][unit_amount]": "1900",
      "line_items[0][price_data][recurring][interval]": "month",
      "line_items[1][price_data][unit_amount]": "1700",
      "metadata[quantity]": "2",
      "metadata[vertical]": "travel",
    });
    expect(recorded.params.success_url).toContain("{CHECKOUT_SESSION_ID}");
    expect(recorded.params.cancel_url).toBeTruthy();
    expect(recorded.idempotencyKey).toBe(`vkr-${res.body.checkout_id}`);
    // No key exists before Stripe confirms the payment.
    expect(keysDeliveredTo("buyer@example.com")).toEqual([]);
  });

  it("a signed checkout.session.completed (paid) issues the keys once and delivers them to the contact; they work", async () => {
    const { session } = await openSession("paid@example.com", 2);
    const res = await deliverSigned(stripe.event("checkout.session.completed", session));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, outcome: "fulfilled" });
    const keys = keysDeliveredTo("paid@example.com");
    expect(keys).toHaveLength(2);
    const detail = await svc.request("/api/keys", { headers: { "x-service-key": keys[0]! } });
    expect(detail.body).toMatchObject({ type: "membership", vertical: "travel", cohort: "inaugural", status: "active" });
    expect(svc.logs.join("\n")).not.toContain(keys[0]!);
  });

  it.each([
    ["a missing header", (p: string) => ({ payload: p, signature: null })],
    ["a wrong signature", (p: string) => ({ payload: p, signature: `t=${nowSeconds()},v1=${"0".repeat(64)}` })],
    [
      "a body altered by one byte",
      (p: string) => ({
        payload: p.replace("checkout.session.completed", "checkout.session.completeD"),
        signature: stripe.sign(p, nowSeconds()),
      }),
    ],
    ["another secret", (p: string) => ({ payload: p, signature: stripe.sign(p, nowSeconds(), "whsec_someone_else") })],
    ["a timestamp 301 s old", (p: string) => ({ payload: p, signature: stripe.sign(p, nowSeconds() - 301) })],
    ["a re-serialised body", (p: string) => ({ payload: JSON.stringify(JSON.parse(p), null, 2), signature: stripe.sign(p, nowSeconds()) })],
  ])("400 and no keys for %s", async (_name, tamper) => {
    const contact = `tamper-${_name.replaceAll(" ", "-")}@example.com`;
    const { session } = await openSession(contact);
    const { payload, signature } = tamper(stripe.event("checkout.session.completed", session));
    const res = await deliver(payload, signature);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("webhook_signature_invalid");
    expect(keysDeliveredTo(contact)).toEqual([]);
  });

  it("replays: the same delivery again, the same event re-signed later, another event id for the session → 200 duplicate, still N keys", async () => {
    const { session } = await openSession("replay@example.com", 3);
    const payload = stripe.event("checkout.session.completed", session, { id: "evt_replay_1" });
    const signature = stripe.sign(payload, nowSeconds());
    expect((await deliver(payload, signature)).body.outcome).toBe("fulfilled");
    expect((await deliver(payload, signature)).body.outcome).toBe("duplicate");
    svc.clock.advance(60_000);
    expect((await deliverSigned(payload)).body.outcome).toBe("duplicate");
    expect((await deliverSigned(stripe.event("checkout.session.completed", session))).body.outcome).toBe("duplicate");
    expect(keysDeliveredTo("replay@example.com")).toHaveLength(3);
  });

  it("the same event posted 10 times in parallel issues exactly N keys", async () => {
    const { session } = await openSession("parallel@example.com", 2);
    const payload = stripe.event("checkout.session.completed", session);
    const signature = stripe.sign(payload, nowSeconds());
    const results = await Promise.all(Array.from({ length: 10 }, () => deliver(payload, signature)));
    // A delivery that meets another one mid-fulfilment answers 409, so Stripe redelivers it later
    // (a 200 would tell Stripe to stop while the keys are not issued yet); none is a 5xx.
    for (const r of results)
      expect([`${r.status} ${r.body?.code ?? ""}`]).toSatisfy(([s]: string[]) => s === "200 " || s === "409 purchase_in_progress");
    expect(results.filter((r) => r.body.outcome === "fulfilled")).toHaveLength(1);
    expect(keysDeliveredTo("parallel@example.com")).toHaveLength(2);
    // Stripe's redelivery after the race: already done.
    expect((await deliver(payload, signature)).body.outcome).toBe("duplicate");
    expect(keysDeliveredTo("parallel@example.com")).toHaveLength(2);
  });

  it("unpaid completion waits; async_payment_succeeded then issues the keys", async () => {
    const { session } = await openSession("async@example.com");
    expect((await deliverSigned(stripe.event("checkout.session.completed", session, { paymentStatus: "unpaid" }))).body.outcome).toBe(
      "awaiting_payment",
    );
    expect(keysDeliveredTo("async@example.com")).toEqual([]);
    expect((await deliverSigned(stripe.event("checkout.session.async_payment_succeeded", session))).body.outcome).toBe("fulfilled");
    expect(keysDeliveredTo("async@example.com")).toHaveLength(1);
  });

  it("out of order: async_payment_succeeded before completed still yields exactly N keys", async () => {
    const { session } = await openSession("order@example.com", 2);
    expect((await deliverSigned(stripe.event("checkout.session.async_payment_succeeded", session))).body.outcome).toBe("fulfilled");
    expect((await deliverSigned(stripe.event("checkout.session.completed", session))).body.outcome).toBe("duplicate");
    expect(keysDeliveredTo("order@example.com")).toHaveLength(2);
  });

  it("an async payment failure issues nothing; unknown event types are 200 ignored", async () => {
    const { session } = await openSession("failed@example.com");
    expect((await deliverSigned(stripe.event("checkout.session.async_payment_failed", session))).body.outcome).toBe("payment_failed");
    expect((await deliverSigned(stripe.event("customer.created", { id: "cus_1", object: "customer" }))).body.outcome).toBe("ignored");
    expect(keysDeliveredTo("failed@example.com")).toEqual([]);
  });

  it("card reserves the account's slots before Stripe is called: a second open session cannot push the account past 5 keys (409, no session)", async () => {
    const first = await openSession("capped@example.com", 3);
    expect((await deliverSigned(stripe.event("checkout.session.completed", first.session))).body.outcome).toBe("fulfilled");
    const key = keysDeliveredTo("capped@example.com")[0]!;
    const second = await buy(checkoutBody("card", { contact: "capped@example.com", quantity: 2 }), { "x-service-key": key });
    expect(second.status).toBe(303);
    const before = stripe.sessions.length;
    // Slots 4 and 5 are held by the open session: nothing is left for a third.
    const third = await buy(checkoutBody("card", { contact: "capped@example.com" }), { "x-service-key": key });
    expect(third.status).toBe(409);
    expect(stripe.sessions.length).toBe(before);
    // An expired session gives its slots back.
    const expired = await deliverSigned(
      stripe.event("checkout.session.expired", stripe.sessions.at(-1)!.session, { paymentStatus: "unpaid" }),
    );
    expect(expired.body.outcome).toBe("payment_failed");
    expect((await buy(checkoutBody("card", { contact: "capped@example.com" }), { "x-service-key": key })).status).toBe(303);
  });

  it("a failed key delivery still answers 200 (the keys exist, Stripe must not retry into new keys) and is logged with the key ids only", async () => {
    const { res, session } = await openSession("undeliverable@example.com");
    relay.mode = "down";
    try {
      expect((await deliverSigned(stripe.event("checkout.session.completed", session))).body.outcome).toBe("fulfilled");
    } finally {
      relay.mode = "ok";
    }
    const line = svc.logs.find((l) => l.includes("key delivery failed") && l.includes(res.body.purchase_id));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/svc_live_/);
  });

  it("Idempotency-Key: a retried card checkout returns the same session, and Stripe created it once", async () => {
    const body = checkoutBody("card", { contact: "idem@example.com" });
    const before = stripe.sessions.length;
    const first = await buy(body, { "idempotency-key": "card-retry-1" });
    const again = await buy(body, { "idempotency-key": "card-retry-1" });
    expect(again.status).toBe(303);
    expect(again.body.session_id).toBe(first.body.session_id);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(stripe.sessions.length).toBe(before + 1);
  });
});
