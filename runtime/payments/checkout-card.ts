/**
 * Checkout with `payment_method: "card"`: records the order, creates a subscription-mode Stripe
 * Checkout Session for it (one line item per distinct key price, so graduated prices are exact),
 * and answers 303 to the session URL with the same URL in the body (agents often do not follow
 * redirects on POST). No key exists yet: `fulfilCardCheckout` issues them when Stripe's signed
 * webhook reports the session paid.
 */
import { randomUUID } from "node:crypto";
import type { AppDeps } from "../deps.ts";
import { apiError } from "../errors.ts";
import type { CohortName } from "../schema/catalog.ts";
import { describeQuote, digestOf, type CheckoutOrder } from "./checkout-order.ts";
import type { SavedResponse } from "./idempotency.ts";
import type { CardLineItem } from "./providers/card.ts";

/** The stored order a webhook fulfils (`checkout:<id>`), looked up by the session's client_reference_id. */
export interface CardOrderRecord {
  checkout_id: string;
  session_id: string | null;
  vertical: string;
  quantity: number;
  cohort: CohortName;
  account: string | null;
  agent_id: string | null;
  contact: string;
  amount_usd_micros: number;
  status: "open" | "fulfilled" | "payment_failed" | "failed";
  key_ids: string[];
  delivery: "pending" | "sent" | "failed";
  created_at: string;
}

export async function checkoutWithCard(deps: AppDeps, order: CheckoutOrder, request: { idempotencyKey: string | null; baseUrl: string }, now: number): Promise<SavedResponse> {
  const card = deps.payments.card;
  if (!card) throw apiError("payment_provider_unavailable", { detail: "Card payments are not configured on this deployment; use agent_network or http402." });
  // A retried request (same Idempotency-Key) maps to the same checkout and so to the same Stripe session.
  const checkoutId = request.idempotencyKey ? `chk_${digestOf("card", request.idempotencyKey).slice(0, 32)}` : `chk_${randomUUID().replaceAll("-", "")}`;
  const record: CardOrderRecord = {
    checkout_id: checkoutId,
    session_id: null,
    vertical: order.vertical,
    quantity: order.quantity,
    cohort: order.quote.cohort,
    account: order.account,
    agent_id: order.agentId ?? null,
    contact: order.contact!,
    amount_usd_micros: order.quote.totalMicros,
    status: "open",
    key_ids: [],
    delivery: "pending",
    created_at: new Date(now).toISOString(),
  };
  await deps.backend.records.setItem(`checkout:${checkoutId}`, record);
  const config = deps.config.payments.stripe;
  const session = await card.stripe.createSession(
    {
      checkoutId,
      contact: record.contact,
      lineItems: _lineItems(order),
      successUrl: config?.successUrl ?? `${request.baseUrl}/docs?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      cancelUrl: config?.cancelUrl ?? `${request.baseUrl}/docs?checkout=cancelled`,
      metadata: { checkout_id: checkoutId, vertical: order.vertical, cohort: order.quote.cohort, quantity: String(order.quantity), agent_id: order.agentId ?? "" },
    },
    { idempotencyKey: `vkr-${checkoutId}` },
  );
  await deps.backend.records.setItem(`checkout:${checkoutId}`, { ...record, session_id: session.id });
  deps.logger.info("checkout session created", { checkout_id: checkoutId, session_id: session.id, amount_usd_micros: order.quote.totalMicros });
  return {
    status: 303,
    headers: { location: session.url },
    body: {
      object: "checkout_session",
      payment_method: "card",
      checkout_id: checkoutId,
      session_id: session.id,
      url: session.url,
      expires_at: session.expiresAt === null ? null : new Date(session.expiresAt).toISOString(),
      quote: describeQuote(order),
      delivery: `Keys are issued when Stripe confirms the payment and are sent to ${record.contact}.`,
    },
  };
}

// --- Internal helpers ---

/** Consecutive keys at the same price share a line item. */
function _lineItems(order: CheckoutOrder): CardLineItem[] {
  const items: CardLineItem[] = [];
  order.quote.perKeyMicros.forEach((price, i) => {
    const last = items.at(-1);
    if (last && last.unitMicros === price) last.quantity++;
    else items.push({ unitMicros: price, quantity: 1, name: `${order.vertical} membership key ${order.quote.keysHeld + i + 1} (${order.quote.cohort} cohort)` });
  });
  for (const item of items) if (item.quantity > 1) item.name = `${order.vertical} membership keys (${order.quote.cohort} cohort)`;
  return items;
}
