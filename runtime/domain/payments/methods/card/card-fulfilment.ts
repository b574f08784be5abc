/**
 * Card purchases after the buyer left our API. POST /api/checkout/webhook takes Stripe's signed
 * events (verified on the raw body):
 * - `checkout.session.completed` when paid (or needing no payment) and
 *   `checkout.session.async_payment_succeeded`: the purchase is charged and its keys issued, once
 *   per session whatever Stripe replays, duplicates or reorders, then mailed when mail is set up;
 * - `checkout.session.async_payment_failed` and `checkout.session.expired`: the reservation goes back;
 * - `invoice.created` for a renewal: credits are applied (`card-credits.ts`).
 * The success page calls `fulfilCardSession` too, after asking Stripe itself, so the buyer never
 * waits on a late webhook. Both go through the purchase's lease and durable record. Whichever
 * path issues the keys (webhook, redelivery, success page, reconciliation), `mailKeysOnce` mails
 * them once: an insert-once step taken right before the SMTP call, as for the charge.
 */
import { randomUUID } from "node:crypto";
import { apiError } from "../../../../shared/errors.ts";
import { failpoint } from "../../../../shared/failpoint.ts";
import { limitsInForce } from "../../../../state/releases/build-ref.ts";
import { releaseSlots, reserveSlots } from "../../../accounts/account-slots.ts";
import { reclaimSeat, releaseSeat } from "../../../cohorts/cohort-seats.ts";
import type { DomainDeps } from "../../../domain-deps.ts";
import type { WebhookOutcome } from "../../payment-schemas.ts";
import type { CardSessionState } from "../../providers/card.ts";
import type { PurchaseDeps } from "../../purchases/purchase-flow.ts";
import { completePurchase, releasePurchase } from "../../purchases/purchase-flow.ts";
import { openKeys } from "../../purchases/purchase-keys.ts";
import { leasePurchase } from "../../purchases/purchase-lease.ts";
import { createPurchaseStore, type PurchaseRecord } from "../../purchases/purchase-store.ts";
import { applyInvoiceCredit } from "./card-credits.ts";
import { freePendingPlace } from "./card-pending.ts";

const PAID_STATUSES = new Set(["paid", "no_payment_required"]);

/** What card fulfilment uses: the purchase steps plus the card provider (mail, seal secret). */
export type CardDeps = PurchaseDeps & Pick<DomainDeps, "payments">;

export async function handleCardWebhook(deps: DomainDeps, rawBody: string, signature: string | null, now: number): Promise<WebhookOutcome> {
  const card = deps.payments.card;
  // No Stripe here means no webhook endpoint: 404, like any route that does not exist.
  if (!card) throw apiError("not_found", { detail: "Card payments are not configured on this deployment, so there is no Stripe webhook." });
  const event = card.stripe.parseWebhook(rawBody, signature, now);
  if (event.invoice && event.type === "invoice.created") return applyInvoiceCredit(deps, event.invoice, now);
  const session = event.session;
  if (!session) return "ignored";
  switch (event.type) {
    case "checkout.session.completed":
      return PAID_STATUSES.has(session.paymentStatus ?? "") ? fulfilCardSession(deps, session, now) : "awaiting_payment";
    case "checkout.session.async_payment_succeeded":
      return fulfilCardSession(deps, { ...session, paymentStatus: "paid" }, now);
    case "checkout.session.async_payment_failed":
    case "checkout.session.expired":
      return _release(
        deps,
        session,
        event.type === "checkout.session.expired" ? "the Stripe session expired unpaid" : "the asynchronous payment failed",
        now,
      );
    default:
      return "ignored";
  }
}

/** Issues a paid session's keys (idempotent) and mails them when mail is configured. */
export async function fulfilCardSession(deps: CardDeps, session: CardSessionState, now: number): Promise<WebhookOutcome> {
  const found = await _purchaseOf(deps, session);
  if (!found) {
    deps.logger.warn("stripe event for an unknown checkout", { session_id: session.id });
    return "unknown_checkout";
  }
  if (found.state === "issued") {
    // Issued by a worker that died before its mail: the redelivery sends it (once).
    await mailKeysOnce(deps, found, now);
    return "duplicate";
  }
  const holder = randomUUID();
  const store = createPurchaseStore(deps.backend);
  // Held by a racing delivery or the success page: non-2xx, so Stripe delivers again later.
  await leasePurchase(deps, found.id, holder, now, "purchase_in_progress");
  try {
    return await fulfilHeldCardPurchase(deps, (await store.get(found.id))!, session, now);
  } finally {
    await store.unlease(found.id, holder);
  }
}

/** `fulfilCardSession` for a caller that already holds the purchase's lease (reconciliation). */
export async function fulfilHeldCardPurchase(
  deps: CardDeps,
  record: PurchaseRecord,
  session: CardSessionState,
  now: number,
): Promise<WebhookOutcome> {
  const store = createPurchaseStore(deps.backend);
  if (record.state === "issued") {
    await mailKeysOnce(deps, record, now);
    return "duplicate";
  }
  if (record.state === "released" || record.state === "refund_due") {
    // Paid after its reservation was given back (a payment that landed as the session expired):
    // the keys if the account still has room and, for a new member, its cohort a seat; else a
    // refund for the operator.
    let again = await _takeSlots(deps, record, now);
    if (again && !(await reclaimSeat(deps, { account: record.account, cohort: record.cohort, holder: `${record.id}:paid-late` }, now))) {
      if (record.account !== null) await releaseSlots(deps.backend, record.account, again.positions, record.id);
      again = null;
    }
    if (!again) {
      await store.save(
        record,
        "refund_due",
        now,
        record.account_pending
          ? "paid after the reservation was released; the account name was taken or the cohort filled meanwhile"
          : "paid after the reservation was released; the account or the cohort is full",
      );
      deps.logger.error("purchase needs a refund", {
        purchase_id: record.id,
        method: "card",
        amount_usd_micros: record.amount_usd_micros,
        session_id: session.id,
      });
      return "refund_due";
    }
    record = again;
  }
  if (record.state !== "charged" && record.account_pending) {
    // A new account comes into being with its payment: whoever paid first owns the name.
    const owned = await _takeSlots(deps, record, now);
    if (!owned) {
      await releaseSeat(deps, record.id, now);
      await store.save(record, "refund_due", now, "paid, but another buyer's payment created this account first");
      deps.logger.error("purchase needs a refund", {
        purchase_id: record.id,
        method: "card",
        amount_usd_micros: record.amount_usd_micros,
        session_id: session.id,
      });
      await freePendingPlace(deps, record.pending_place, record.id);
      return "refund_due";
    }
    record = owned;
  }
  if (record.state !== "charged") {
    record = await store.save(
      {
        ...record,
        payment: { reference: session.reference ?? session.id, charged_usd_micros: record.amount_usd_micros, unconfirmed: null },
      },
      "charged",
      now,
    );
    failpoint(deps.config, "purchase:charged");
    await freePendingPlace(deps, record.pending_place, record.id);
  }
  record = await completePurchase(deps, record, now);
  await mailKeysOnce(deps, record, now);
  return "fulfilled";
}

// --- Internal helpers ---

async function _purchaseOf(deps: CardDeps, session: CardSessionState): Promise<PurchaseRecord | null> {
  const store = createPurchaseStore(deps.backend);
  const bySession = await store.bySession(session.id);
  if (bySession) return bySession;
  // The session is indexed right after Stripe created it; a crash in between leaves only the reference.
  const id = session.clientReferenceId ?? session.metadata.purchase_id;
  const record = id ? await store.get(id) : null;
  return record?.method === "card" ? record : null;
}

/** The account's slots for a paid purchase that holds none (new account, or released); null: no room, or the name is taken. */
async function _takeSlots(deps: CardDeps, record: PurchaseRecord, now: number): Promise<PurchaseRecord | null> {
  if (record.account === null) return record;
  const create = record.account_pending === true;
  const slots = await reserveSlots(deps.backend, {
    account: record.account,
    quantity: record.quantity,
    cap: limitsInForce(deps).keys_per_account,
    holder: record.id,
    create,
    now,
  });
  return slots.ok ? { ...record, positions: slots.positions, ...(create ? { account_pending: false } : {}) } : null;
}

async function _release(deps: CardDeps, session: CardSessionState, reason: string, now: number): Promise<WebhookOutcome> {
  const record = await _purchaseOf(deps, session);
  if (!record) return "unknown_checkout";
  if (record.state === "awaiting_payment" || record.state === "reserved") {
    const holder = randomUUID();
    const store = createPurchaseStore(deps.backend);
    await leasePurchase(deps, record.id, holder, now, "purchase_in_progress");
    try {
      const current = (await store.get(record.id))!;
      if (current.state === "awaiting_payment" || current.state === "reserved") {
        await releasePurchase(deps, current, reason, now);
        await freePendingPlace(deps, current.pending_place, current.id);
      }
    } finally {
      await store.unlease(record.id, holder);
    }
  }
  return "payment_failed";
}

/**
 * Mails an issued card purchase's keys when mail is configured, at most once whatever path calls
 * it: the `mail` step is taken right before the send. A send that fails gives the step back, so
 * the next path (the success page before it shows the keys, a redelivery) tries again; a crash
 * during the SMTP conversation itself leaves it taken (the page still shows the keys once).
 * Best effort: a failure is logged with key ids only.
 */
export async function mailKeysOnce(deps: CardDeps, record: PurchaseRecord, now: number): Promise<void> {
  const card = deps.payments.card;
  if (!card?.delivery || !record.contact || record.method !== "card" || record.state !== "issued") return;
  const keys = openKeys(record, card.sealSecret);
  if (!keys) return;
  const mark = `${now}:${randomUUID()}`;
  if (!(await createPurchaseStore(deps.backend).takeStep(record.id, "mail", mark, now)).taken) return;
  try {
    await card.delivery.deliver({ to: record.contact, checkoutId: record.id, vertical: record.vertical, keys });
    deps.logger.info("keys mailed", { purchase_id: record.id, key_ids: record.key_ids });
  } catch (error) {
    deps.logger.error("key delivery failed", { purchase_id: record.id, key_ids: record.key_ids, reason: (error as Error).message });
    const store = createPurchaseStore(deps.backend);
    await store.untakeStep(record.id, "mail", mark);
    await store.save(record, "issued", now, "key mail failed");
  }
}
