/**
 * Where Stripe sends the card buyer back (`/checkout/success?session_id=…`). The page confirms the
 * payment with Stripe itself when our webhook has not arrived yet (and then fulfils exactly as the
 * webhook would), and shows the keys **once**: the first view takes an insert-once marker and
 * drops the sealed copy from the store, so no later view, nor a copy of the store, can show them
 * again. Keys also went by mail when SMTP (or a relay) is configured.
 *
 * Any purchase not yet final (waiting, or charged by a worker that crashed before or while it
 * issued the keys) is resumed here: the page fulfils it under the purchase's lease, or says
 * `processing` (and reloads) while another worker, or a dead one's lease, still holds it.
 */
import { isApiError } from "../../../../shared/errors.ts";
import type { DomainDeps } from "../../../domain-deps.ts";
import { describePurchasedKeys, openKeys } from "../../purchases/purchase-keys.ts";
import { createPurchaseStore, FINAL_STATES, type PurchaseRecord } from "../../purchases/purchase-store.ts";
import { fulfilCardSession, mailKeysOnce } from "./card-fulfilment.ts";

export type CardSuccessView =
  | { status: "unknown" }
  | { status: "awaiting_payment"; purchase_id: string; expires_at: string | null }
  | { status: "processing"; purchase_id: string }
  | { status: "keys"; purchase_id: string; keys: Awaited<ReturnType<typeof describePurchasedKeys>>; mailed_to: string | null }
  | { status: "already_shown"; purchase_id: string; mailed_to: string | null }
  | { status: "not_completed"; purchase_id: string; state: string };

export const SESSION_ID_RE = /^cs_[A-Za-z0-9_]{1,250}$/;

export async function viewCardSuccess(deps: DomainDeps, sessionId: string, now: number): Promise<CardSuccessView> {
  const card = deps.payments.card;
  if (!card) return { status: "unknown" };
  const store = createPurchaseStore(deps.backend);
  let record = await store.bySession(sessionId);
  if (!record) return { status: "unknown" };
  if (!FINAL_STATES.has(record.state)) {
    const session = await card.stripe.retrieveSession(sessionId);
    if (session.paymentStatus === "paid" || session.paymentStatus === "no_payment_required") {
      try {
        await fulfilCardSession(deps, session, now);
      } catch (error) {
        // The webhook (or a crashed worker's lease) holds it: the page says so and reloads.
        if (!(isApiError(error) && error.code === "purchase_in_progress")) throw error;
        return { status: "processing", purchase_id: record.id };
      }
      record = (await store.get(record.id))!;
    }
  }
  const mailedTo = card.delivery ? record.contact : null;
  if (record.state === "awaiting_payment" || record.state === "reserved") {
    return {
      status: "awaiting_payment",
      purchase_id: record.id,
      expires_at: record.card?.expires_at ? new Date(record.card.expires_at).toISOString() : null,
    };
  }
  if (!FINAL_STATES.has(record.state)) return { status: "processing", purchase_id: record.id };
  if (record.state !== "issued") return { status: "not_completed", purchase_id: record.id, state: record.state };
  // Issued by a worker that died before its mail: mailed now, while the sealed copy still exists.
  await mailKeysOnce(deps, record, now);
  const keys = (await store.showOnce(record.id, now)) ? openKeys(record, card.sealSecret) : null;
  if (!keys) return { status: "already_shown", purchase_id: record.id, mailed_to: mailedTo };
  await _dropSealedKeys(deps, record, now);
  return { status: "keys", purchase_id: record.id, keys: await describePurchasedKeys(deps, keys, now), mailed_to: mailedTo };
}

// --- Internal helpers ---

async function _dropSealedKeys(deps: DomainDeps, record: PurchaseRecord, now: number): Promise<void> {
  await createPurchaseStore(deps.backend).save({ ...record, sealed_keys: null }, record.state, now, "keys shown on the success page");
}
