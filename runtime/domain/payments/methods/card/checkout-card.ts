/**
 * Checkout with `payment_method: "card"`: reserves the purchase (account slots, price tier, the
 * keys to be issued, sealed under the server's Stripe secret), creates a subscription-mode Stripe
 * Checkout Session for exactly that price (one line item per distinct key price), and answers 303
 * to the session URL with the same URL in the body (agents often do not follow redirects on POST).
 *
 * No key is active yet: the purchase waits in `awaiting_payment` until Stripe's signed webhook, or
 * the success page confirming with Stripe itself, reports the session paid (`card-fulfilment.ts`).
 * The session expires after an hour; an unpaid one then gives its slots back.
 *
 * An unpaid checkout holds as little as it can: one of its client's CARD_PENDING_PER_CLIENT places
 * (`card-pending.ts`, taken first), and, when it would create a new account, not even the account:
 * the name is taken only once the payment completes, so whoever pays first owns it (a card payment
 * that completes after someone else took the name is `refund_due`, never keys in their account).
 */
import { apiError } from "../../../../shared/errors.ts";
import { failpoint } from "../../../../shared/failpoint.ts";
import type { PurchaseAccount } from "../../../accounts/purchase-account.ts";
import type { DomainDeps } from "../../../domain-deps.ts";
import type { CardLineItem } from "../../providers/card.ts";
import { type CheckoutOrder, describeQuote } from "../../purchases/checkout-order.ts";
import type { SavedResponse } from "../../purchases/idempotency.ts";
import { accountProofRequired, releasePurchase, reservationUnfinished } from "../../purchases/purchase-flow.ts";
import { finishClaimed } from "../../purchases/purchase-lease.ts";
import { createPurchaseStore, type PurchaseRecord } from "../../purchases/purchase-store.ts";
import { claimByIdempotencyKey, reserveOrder } from "../run-checkout.ts";
import { freePendingPlace, holdPendingPlace } from "./card-pending.ts";

/** How long a buyer has to pay at Stripe (Stripe accepts 30 minutes to 24 hours). */
const CARD_SESSION_MS = 60 * 60_000;

export interface CardCheckout {
  idempotencyKey: string | null;
  fingerprint: string;
  baseUrl: string;
  /** The client address, for the pending-checkout limit. */
  client: string;
}

export async function checkoutWithCard(
  deps: DomainDeps,
  order: CheckoutOrder,
  account: PurchaseAccount,
  input: CardCheckout,
  now: number,
): Promise<SavedResponse> {
  const card = deps.payments.card;
  if (!card)
    throw apiError("payment_provider_unavailable", {
      detail: "Card payments are not configured on this deployment; use agent_network or http402.",
    });
  const { id, claim } = await claimByIdempotencyKey(deps, input, now);
  return finishClaimed(deps, { id, claim, inProgress: "idempotency_in_progress" }, now, async () => {
    const store = createPurchaseStore(deps.backend);
    let record = await store.get(id);
    // A retry of a purchase that already has its session gets the same session again.
    if (record?.card) return _answer(deps, record, true);
    if (record && record.state !== "reserved")
      throw apiError("payment_failed", { detail: `This purchase ended (${record.state}); start a new checkout.` });
    const expiresAt = now + CARD_SESSION_MS;
    if (!record || reservationUnfinished(record)) {
      // The client's limit first, atomically; given back if this checkout goes no further.
      const place = await holdPendingPlace(deps, input.client, id, expiresAt, now);
      try {
        if (account.create && (await deps.keys.listByAccount(account.account)).some((k) => k.type === "membership"))
          throw accountProofRequired(account.account);
        // The order's contact is there: the order is refused without one for card.
        ({ record } = await reserveOrder(
          deps,
          order,
          account,
          {
            id,
            method: "card",
            deferAccount: account.create,
            pendingPlace: place,
            secret: card.sealSecret,
            resumable: true,
            payer: { contact: order.contact! },
          },
          now,
        ));
      } catch (error) {
        await freePendingPlace(deps, place, id);
        throw error;
      }
    }
    const config = deps.config.payments.methods.card;
    let session;
    try {
      session = await card.stripe.createSession(
        {
          checkoutId: id,
          contact: order.contact!,
          lineItems: _lineItems(record),
          successUrl: config?.successUrl ?? `${input.baseUrl}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
          cancelUrl: config?.cancelUrl ?? `${input.baseUrl}/checkout/success?session_id={CHECKOUT_SESSION_ID}`,
          metadata: {
            purchase_id: id,
            account: record.account ?? "",
            vertical: order.vertical,
            cohort: record.cohort,
            quantity: String(order.quantity),
            agent_id: order.agentId ?? "",
          },
          expiresAt,
        },
        // Stripe's own idempotency: a retried creation returns the same session.
        { idempotencyKey: `vkr-${id}` },
      );
    } catch (error) {
      // No session URL reached the buyer, so nothing can be paid: the reservation goes back.
      await releasePurchase(deps, record, "the Stripe session could not be created", now);
      await freePendingPlace(deps, record.pending_place, id);
      throw error;
    }
    failpoint(deps.config, "card:session-created");
    await store.indexSession(session.id, id);
    record = await store.save(
      { ...record, card: { session_id: session.id, url: session.url, expires_at: session.expiresAt ?? expiresAt } },
      "awaiting_payment",
      now,
    );
    deps.logger.info("checkout session created", { purchase_id: id, session_id: session.id, amount_usd_micros: record.amount_usd_micros });
    return _answer(deps, record, false);
  });
}

// --- Internal helpers ---

async function _answer(deps: DomainDeps, record: PurchaseRecord, replayed: boolean): Promise<SavedResponse> {
  const card = record.card!;
  return {
    status: 303,
    headers: { location: card.url, ...(replayed ? { "idempotent-replayed": "true" } : {}) },
    body: {
      object: "checkout_session",
      payment_method: "card",
      checkout_id: record.id,
      purchase_id: record.id,
      session_id: card.session_id,
      url: card.url,
      expires_at: card.expires_at === null ? null : new Date(card.expires_at).toISOString(),
      quote: await describeQuote(deps, record, record.account),
      delivery: `Keys are issued when Stripe confirms the payment; Stripe then sends the buyer to our success page, which shows them once${deps.payments.card?.delivery ? `, and they are mailed to ${record.contact}` : ""}.`,
    },
  };
}

/** Consecutive keys at the same price share a line item. */
function _lineItems(record: PurchaseRecord): CardLineItem[] {
  const items: CardLineItem[] = [];
  record.per_key_usd_micros.forEach((price, i) => {
    const last = items.at(-1);
    const position = record.positions[i] ?? i + 1;
    if (last && last.unitMicros === price) last.quantity++;
    else items.push({ unitMicros: price, quantity: 1, name: `${record.vertical} membership key ${position} (${record.cohort} cohort)` });
  });
  for (const item of items) if (item.quantity > 1) item.name = `${record.vertical} membership keys (${record.cohort} cohort)`;
  return items;
}
