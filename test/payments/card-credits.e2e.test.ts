/**
 * Credits are real money: when Stripe drafts a renewal invoice
 * (`invoice.created`, billing_reason subscription_cycle), the account's referral and loyalty credit
 * is added to it as a negative invoice item (Stripe's API, through the stand-in), exactly once per
 * invoice however often Stripe delivers the event, never more than the balance across an
 * account's invoices, and GET /api/keys shows where it went.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCreditsStore } from "../../runtime/state/storage/credits-store.ts";
import type { TestService } from "../helpers/test-service.ts";
import { type StripeStandIn, startStripe, stripeEnv } from "./stand-ins/stripe.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let stripe: StripeStandIn;
let svc: TestService;
beforeAll(async () => {
  stripe = await startStripe();
  svc = await startPaymentsService(stripeEnv(stripe));
});
afterAll(async () => {
  await svc?.close();
  await stripe?.close();
});

const deliver = (payload: string) =>
  svc.request("/api/checkout/webhook", {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": stripe.sign(payload, Math.floor(svc.clock.now() / 1000)) },
    body: payload,
  });

/** A card member: checkout, payment, the key from the success page. */
async function cardMember(contact: string): Promise<string> {
  const res = await svc.request("/api/checkout", { method: "POST", json: checkoutBody("card", { contact }), redirect: "manual" });
  stripe.pay(res.body.session_id);
  const page = await svc.request(`/checkout/success?session_id=${res.body.session_id}`, { headers: { accept: "application/json" } });
  return page.body.keys[0].key;
}
const grant = (account: string, id: string, micros: number, kind: "loyalty" | "referral" = "loyalty") =>
  createCreditsStore(svc.service.deps.backend).grant(
    { grantId: id, account, kind, amountUsdMicros: micros, reason: "test" },
    svc.clock.now(),
  );
const renewal = (id: string, account: string, overrides: Record<string, unknown> = {}) =>
  stripe.invoiceEvent("invoice.created", {
    id,
    status: "draft",
    billing_reason: "subscription_cycle",
    amount_due: 1900,
    customer: `cus_${account.length}`,
    subscription_details: { metadata: { account } },
    ...overrides,
  });
const itemsFor = (invoice: string) => stripe.invoiceItems.filter((i) => i.params.invoice === invoice);

describe("credits at renewal", () => {
  it("a renewal invoice gets the account's credit as one negative line, once however often Stripe delivers it; GET /api/keys shows it", async () => {
    const key = await cardMember("renewing@example.com");
    await grant("renewing@example.com", "loyalty:inaugural:renewing", 1_900_000);
    await grant("renewing@example.com", "referral:test-1", 1_500_000, "referral");
    const event = renewal("in_renewal_1", "renewing@example.com");
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => deliver(event)));
    expect(outcomes.every((o) => o.status === 200 && o.body.outcome === "credit_applied")).toBe(true);
    expect(new Set(itemsFor("in_renewal_1").map((i) => i.idempotencyKey))).toEqual(new Set(["vkr-credit-in_renewal_1"]));
    expect(itemsFor("in_renewal_1")[0]!.params).toMatchObject({ amount: "-340", currency: "usd", customer: "cus_20" });
    const credits = (await svc.request("/api/keys", { headers: { "x-service-key": key } })).body.credits;
    expect(credits).toMatchObject({ balance_usd_micros: 0, applied: [{ invoice: "in_renewal_1", amount_usd_micros: 3_400_000 }] });
    // Nothing left for the next cycle.
    expect((await deliver(renewal("in_renewal_2", "renewing@example.com"))).body.outcome).toBe("no_credit");
  });

  it("credit never exceeds the amount due; the rest waits for the next renewal", async () => {
    await cardMember("rich@example.com");
    await grant("rich@example.com", "referral:big", 25_000_000, "referral");
    await deliver(renewal("in_rich_1", "rich@example.com"));
    expect(itemsFor("in_rich_1")[0]!.params.amount).toBe("-1900");
    await deliver(renewal("in_rich_2", "rich@example.com"));
    expect(itemsFor("in_rich_2")[0]!.params.amount).toBe("-600");
  });

  it("an account's several subscriptions renewing at once share its balance: never more than it in total", async () => {
    await cardMember("many@example.com");
    await grant("many@example.com", "loyalty:many", 1_900_000);
    const invoices = ["in_many_1", "in_many_2", "in_many_3", "in_many_4"];
    await Promise.all(invoices.map((id) => deliver(renewal(id, "many@example.com"))));
    const total = invoices.flatMap(itemsFor).reduce((sum, i) => sum - Number(i.params.amount), 0);
    expect(total).toBe(190);
  });

  it("the first invoice (the purchase itself), finalized invoices and unknown accounts get nothing", async () => {
    await grant("first@example.com", "loyalty:first", 1_900_000);
    expect((await deliver(renewal("in_create", "first@example.com", { billing_reason: "subscription_create" }))).body.outcome).toBe(
      "no_credit",
    );
    expect((await deliver(renewal("in_open", "first@example.com", { status: "open" }))).body.outcome).toBe("no_credit");
    expect((await deliver(renewal("in_nobody", "nobody@example.com"))).body.outcome).toBe("no_credit");
    expect(itemsFor("in_create").length + itemsFor("in_open").length + itemsFor("in_nobody").length).toBe(0);
  });
});
