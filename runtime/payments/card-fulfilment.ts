/**
 * POST /api/checkout/webhook: Stripe's signed events, verified on the raw body. Keys are issued
 * for `checkout.session.completed` when the session is paid (or needs no payment), or for
 * `checkout.session.async_payment_succeeded`, whichever arrives first. Fulfilment is once per
 * session (an insert-once claim on the session id), so replays, duplicates, retries and
 * out-of-order deliveries all answer 200 and never issue a second set of keys.
 */
import type { AppDeps } from "../deps.ts";
import { apiError, isApiError } from "../errors.ts";
import type { WebhookOutcome } from "../schema/payments.ts";
import type { CardOrderRecord } from "./checkout-card.ts";
import { issuePurchasedKeys } from "./issue-purchased-keys.ts";
import type { CardEvent } from "./providers/card.ts";

const PAID_STATUSES = new Set(["paid", "no_payment_required"]);

export async function handleCardWebhook(deps: AppDeps, rawBody: string, signature: string | null, now: number): Promise<WebhookOutcome> {
  const card = deps.payments.card;
  // No Stripe here means no webhook endpoint: 404, like any route that does not exist.
  if (!card) throw apiError("not_found", { detail: "Card payments are not configured on this deployment, so there is no Stripe webhook." });
  const event = card.stripe.parseWebhook(rawBody, signature, now);
  const session = event.session;
  if (!session) return "ignored";
  const completed = event.type === "checkout.session.completed";
  if (event.type === "checkout.session.async_payment_failed") return _markFailed(deps, session);
  if (!completed && event.type !== "checkout.session.async_payment_succeeded") return "ignored";
  if (completed && !PAID_STATUSES.has(session.paymentStatus ?? "")) return "awaiting_payment";
  return _fulfil(deps, event, now);
}

// --- Internal helpers ---

async function _order(deps: AppDeps, session: NonNullable<CardEvent["session"]>): Promise<CardOrderRecord | null> {
  const checkoutId = session.clientReferenceId ?? session.metadata.checkout_id;
  if (!checkoutId) return null;
  return deps.backend.records.getItem<CardOrderRecord>(`checkout:${checkoutId}`);
}

async function _markFailed(deps: AppDeps, session: NonNullable<CardEvent["session"]>): Promise<WebhookOutcome> {
  const order = await _order(deps, session);
  if (!order) return "unknown_checkout";
  if (order.status === "open") await deps.backend.records.setItem(`checkout:${order.checkout_id}`, { ...order, status: "payment_failed" });
  return "payment_failed";
}

async function _fulfil(deps: AppDeps, event: CardEvent, now: number): Promise<WebhookOutcome> {
  const session = event.session!;
  const order = await _order(deps, session);
  if (!order) {
    deps.logger.warn("stripe webhook for an unknown checkout", { event_id: event.id, session_id: session.id });
    return "unknown_checkout";
  }
  const claim = await deps.backend.insertOnce(`checkout-fulfil:${session.id}`, event.id, null, now);
  if (!claim.created) return "duplicate";
  let issued;
  try {
    issued = await issuePurchasedKeys(deps, { vertical: order.vertical, quantity: order.quantity, cohort: order.cohort, agentId: order.agent_id ?? undefined, contact: order.contact }, now);
  } catch (error) {
    if (isApiError(error) && error.code === "conflict") {
      // The account filled its 5 keys between checkout and payment: retrying cannot help; refund by hand.
      deps.logger.error("card checkout paid but the account is at its key cap", { checkout_id: order.checkout_id, session_id: session.id });
      await deps.backend.records.setItem(`checkout:${order.checkout_id}`, { ...order, status: "failed" });
      return "account_cap_reached";
    }
    // Anything else (store down): release the claim and fail, so Stripe retries the delivery.
    await deps.backend.removeOnce(`checkout-fulfil:${session.id}`);
    throw error;
  }
  const fulfilled: CardOrderRecord = { ...order, session_id: session.id, status: "fulfilled", key_ids: issued.map((i) => i.record.id) };
  await deps.backend.records.setItem(`checkout:${order.checkout_id}`, fulfilled);
  deps.logger.info("keys issued", { source: "checkout", method: "card", key_ids: fulfilled.key_ids, checkout_id: order.checkout_id, event_id: event.id });
  let delivery: CardOrderRecord["delivery"] = "sent";
  try {
    await deps.payments.card!.delivery.deliver({ to: order.contact, checkoutId: order.checkout_id, vertical: order.vertical, keys: issued.map((i) => i.key) });
  } catch (error) {
    delivery = "failed";
    deps.logger.error("key delivery failed", { checkout_id: order.checkout_id, key_ids: fulfilled.key_ids, reason: (error as Error).message });
  }
  await deps.backend.records.setItem(`checkout:${order.checkout_id}`, { ...fulfilled, delivery });
  return "fulfilled";
}
