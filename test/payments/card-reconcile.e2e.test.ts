/**
 * Reconciliation of card purchases still awaiting their payment, which it reaches through the
 * payment methods' registry (card's `awaiting` hook): left alone while the Stripe session is
 * open; once it has expired, Stripe is asked: paid → the keys are issued and mailed (no webhook
 * came), unpaid → the reservation goes back. The operator's list says which are still waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, type TestService } from "../helpers/test-service.ts";
import { startMailRelay, type RelayStandIn } from "./stand-ins/mail-relay.ts";
import { startStripe, stripeEnv, type StripeStandIn } from "./stand-ins/stripe.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let stripe: StripeStandIn;
let relay: RelayStandIn;
let svc: TestService;
beforeAll(async () => {
  stripe = await startStripe();
  relay = await startMailRelay();
  // Reconciliation runs only when this suite asks for it.
  svc = await startPaymentsService({ ...stripeEnv(stripe, relay.url), RECONCILE_INTERVAL_MS: "0" });
});
afterAll(async () => {
  await svc?.close();
  await stripe?.close();
  await relay?.close();
});

const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };
const SESSION_MS = 60 * 60_000;

async function openSession(contact: string) {
  const res = await svc.request("/api/checkout", { method: "POST", json: checkoutBody("card", { contact }), redirect: "manual" });
  expect(res.status).toBe(303);
  return { purchaseId: res.body.purchase_id as string, sessionId: res.body.session_id as string };
}
const reconcile = async () => (await svc.request("/api/admin/payments/reconcile", { method: "POST", headers: ADMIN })).body;
const overview = async () => (await svc.request("/api/admin/payments", { headers: ADMIN })).body;
const entryOf = (list: Array<{ id: string }>, id: string) => list.find((e) => e.id === id);

describe("reconciliation of card purchases awaiting payment", () => {
  it("waits while the session is open; after it expired, issues and mails a paid one and releases an unpaid one", async () => {
    const paid = await openSession("paid-late@example.com");
    const unpaid = await openSession("never-paid@example.com");

    for (const id of [paid.purchaseId, unpaid.purchaseId])
      expect(entryOf((await overview()).open, id)).toMatchObject({ state: "awaiting_payment", action: "awaiting payment at Stripe" });
    const early = await reconcile();
    for (const id of [paid.purchaseId, unpaid.purchaseId]) {
      expect(entryOf(early.open, id)).toMatchObject({ state: "awaiting_payment", action: "awaiting payment at Stripe" });
      expect(entryOf(early.resolved, id)).toBeUndefined();
    }

    // Paid at Stripe, but no webhook ever arrives; then both sessions expire.
    stripe.pay(paid.sessionId);
    svc.clock.advance(SESSION_MS + 60_000);
    for (const id of [paid.purchaseId, unpaid.purchaseId])
      expect(entryOf((await overview()).open, id)).toMatchObject({ state: "awaiting_payment", action: "open" });

    const late = await reconcile();
    expect(entryOf(late.resolved, paid.purchaseId)).toMatchObject({ state: "issued", action: "paid at Stripe: keys issued" });
    expect(entryOf(late.resolved, unpaid.purchaseId)).toMatchObject({ state: "released", action: "released (session ended unpaid)" });
    const mailed = relay.messages.filter((m) => m.to === "paid-late@example.com").flatMap((m) => m.keys);
    expect(mailed).toHaveLength(1);
    const key = await svc.request("/api/keys", { headers: { "x-service-key": mailed[0]! } });
    expect(key.body).toMatchObject({ type: "membership", vertical: "travel", status: "active" });
    expect(relay.messages.filter((m) => m.to === "never-paid@example.com")).toEqual([]);

    // Nothing is left open, and a second pass changes nothing (the keys are not mailed again).
    const again = await reconcile();
    expect(entryOf(again.open, paid.purchaseId)).toBeUndefined();
    expect(entryOf(again.resolved, paid.purchaseId)).toBeUndefined();
    expect(relay.messages.filter((m) => m.to === "paid-late@example.com")).toHaveLength(1);
  });
});
