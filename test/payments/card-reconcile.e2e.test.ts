/**
 * Reconciliation of card purchases still awaiting their payment, which it reaches through the
 * payment methods' registry (card's `awaiting` hook): left alone while the Stripe session is
 * open; once it has expired, Stripe is asked: paid → the keys are issued and mailed (no webhook
 * came), unpaid → the reservation goes back. The operator's list says which are still waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY } from "../helpers/test-service.ts";
import { type CardSuite, checkoutBody, startCardSuite } from "./start-payments-service.ts";

// Reconciliation runs only when this suite asks for it.
let suite: CardSuite;
beforeAll(async () => {
  suite = await startCardSuite({ RECONCILE_INTERVAL_MS: "0" });
});
afterAll(() => suite?.close());

const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };
const SESSION_MS = 60 * 60_000;

async function openSession(contact: string) {
  const res = await suite.svc.request("/api/checkout", { method: "POST", json: checkoutBody("card", { contact }), redirect: "manual" });
  expect(res.status).toBe(303);
  return { purchaseId: res.body.purchase_id as string, sessionId: res.body.session_id as string };
}
const reconcile = async () => (await suite.svc.request("/api/admin/payments/reconcile", { method: "POST", headers: ADMIN })).body;
const overview = async () => (await suite.svc.request("/api/admin/payments", { headers: ADMIN })).body;
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
    suite.stripe.pay(paid.sessionId);
    suite.svc.clock.advance(SESSION_MS + 60_000);
    for (const id of [paid.purchaseId, unpaid.purchaseId])
      expect(entryOf((await overview()).open, id)).toMatchObject({ state: "awaiting_payment", action: "open" });

    const late = await reconcile();
    expect(entryOf(late.resolved, paid.purchaseId)).toMatchObject({ state: "issued", action: "paid at Stripe: keys issued" });
    expect(entryOf(late.resolved, unpaid.purchaseId)).toMatchObject({ state: "released", action: "released (session ended unpaid)" });
    const mailed = suite.relay.messages.filter((m) => m.to === "paid-late@example.com").flatMap((m) => m.keys);
    expect(mailed).toHaveLength(1);
    const key = await suite.svc.request("/api/keys", { headers: { "x-service-key": mailed[0]! } });
    expect(key.body).toMatchObject({ type: "membership", vertical: "travel", status: "active" });
    expect(suite.relay.messages.filter((m) => m.to === "never-paid@example.com")).toEqual([]);

    // Nothing is left open, and a second pass changes nothing (the keys are not mailed again).
    const again = await reconcile();
    expect(entryOf(again.open, paid.purchaseId)).toBeUndefined();
    expect(entryOf(again.resolved, paid.purchaseId)).toBeUndefined();
    expect(suite.relay.messages.filter((m) => m.to === "paid-late@example.com")).toHaveLength(1);
  });
});
