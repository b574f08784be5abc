/**
 * Card's part of reconciliation (`../../purchases/reconcile.ts`): a purchase waiting in
 * `awaiting_payment` is left alone while its Stripe session is open; once the session has
 * expired Stripe is asked: paid → the keys are issued (and mailed, as the webhook would have),
 * otherwise the reservation goes back.
 */

import { releasePurchase } from "../../purchases/purchase-flow.ts";
import { createPurchaseStore } from "../../purchases/purchase-store.ts";
import type { AwaitingPayment } from "../payment-method.ts";
import { fulfilHeldCardPurchase, mailKeysOnce } from "./card-fulfilment.ts";

export const cardAwaitingPayment: AwaitingPayment = {
  async reconcile(deps, record, now) {
    const card = deps.payments.card;
    if (!card || !record.card)
      return { record: await releasePurchase(deps, record, "reconciled: no card session", now), action: "released (no card session)" };
    if (record.card.expires_at !== null && record.card.expires_at > now) return { record, action: "awaiting payment at Stripe" };
    const session = await card.stripe.retrieveSession(record.card.session_id);
    if (session.paymentStatus === "paid" || session.paymentStatus === "no_payment_required") {
      await fulfilHeldCardPurchase(deps, record, session, now);
      return { record: (await createPurchaseStore(deps.backend).get(record.id))!, action: "paid at Stripe: keys issued" };
    }
    return {
      record: await releasePurchase(deps, record, "reconciled: the card session ended unpaid", now),
      action: "released (session ended unpaid)",
    };
  },
  status: (record, now) => (record.card?.expires_at && record.card.expires_at > now ? "awaiting payment at Stripe" : "open"),
  issued: mailKeysOnce,
};
