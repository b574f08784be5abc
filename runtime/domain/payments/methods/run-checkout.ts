/**
 * The checkout state machine, written once for every method that pays at once: under the
 * purchase's claim, load its record; answer an issued purchase again, refuse a released or
 * refund-due one, and one waiting for the operator to confirm its charge; else reserve (a durable record before any outside call), let the method
 * authorize the payment while the purchase is only reserved (a refusal releases it and charges
 * nothing), charge at most once (`chargePurchase`), issue, and answer. A method supplies only what
 * is its own: the claim, the payer, the authorization, the charge call and the answer.
 *
 * The steps a method whose charge happens elsewhere shares with it (card: the claim of an
 * Idempotency-Key, the reservation of an order) are exported beside it.
 */

import type { ApiError } from "../../../shared/errors.ts";
import type { PurchaseAccount } from "../../accounts/purchase-account.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import type { CheckoutOrder } from "../purchases/checkout-order.ts";
import { claimPurchase, idempotencyKeyReused, type PurchaseClaim, type SavedResponse } from "../purchases/idempotency.ts";
import {
  type ChargeOptions,
  type ChargeReceipt,
  chargePurchase,
  completePurchase,
  newPurchaseId,
  type PurchaseRequest,
  paymentUnconfirmed,
  type Reserved,
  releasePurchase,
  reservationUnfinished,
  reservePurchase,
} from "../purchases/purchase-flow.ts";
import { finishClaimed } from "../purchases/purchase-lease.ts";
import { createPurchaseStore, type PurchaseRecord } from "../purchases/purchase-store.ts";
import type { PaymentMethodId } from "./method-ids.ts";

/** Why a reserved purchase is refused before anything is charged. */
export interface Refusal {
  /** Recorded in the purchase's history as it is released. */
  note: string;
  /** What the driver throws once the purchase is released (the method's own error). */
  error(released: PurchaseRecord): Promise<unknown> | unknown;
}

export interface CheckoutRun {
  method: PaymentMethodId;
  id: string;
  claim: PurchaseClaim | null;
  inProgress: Parameters<typeof finishClaimed>[1]["inProgress"];
  /** Seals the keys until the buyer presents it again; the payer's public identity for the record. */
  secret: string;
  payer: Record<string, string>;
  /** Recorded at reservation, before `authorize` touches it: the token ledger it holds part of. */
  ledgerHold?: PurchaseRecord["ledger_hold"];
  /**
   * Runs while the purchase is only reserved, before the charge: null to go on, else a refusal
   * (the driver releases the purchase, then throws the refusal's error). What it throws instead
   * leaves the purchase reserved, for a retry or reconciliation.
   */
  authorize?(record: PurchaseRecord): Promise<Refusal | null>;
  /**
   * What asks the charge again after its outcome was lost (x402: the signed payment and our
   * requirements), recorded with the `charging` record, before the charge.
   */
  chargeRequest?(record: PurchaseRecord): Promise<Record<string, unknown>>;
  /** The one outside call that takes the money; `attemptedBefore` when an earlier attempt of this purchase made it. */
  charge(record: PurchaseRecord, attemptedBefore: boolean): Promise<ChargeReceipt>;
  chargeOptions?: ChargeOptions;
  /** `fresh`: the keys in clear from this request's reservation; null when the purchase was found reserved or further (a replay). */
  answer(record: PurchaseRecord, fresh: string[] | null): Promise<SavedResponse>;
  /** An earlier attempt of this purchase was refused and nothing was charged. */
  earlierRefused(): ApiError;
  refundDue(record: PurchaseRecord): ApiError;
}

export async function runCheckout(
  deps: DomainDeps,
  order: CheckoutOrder,
  account: PurchaseAccount,
  run: CheckoutRun,
  now: number,
): Promise<SavedResponse> {
  return finishClaimed(deps, { id: run.id, claim: run.claim, inProgress: run.inProgress }, now, async () => {
    let record = await createPurchaseStore(deps.backend).get(run.id);
    if (record?.state === "issued") return run.answer(record, null);
    if (record?.state === "released") throw run.earlierRefused();
    if (record?.state === "refund_due") throw run.refundDue(record);
    if (record?.state === "unconfirmed") throw paymentUnconfirmed(record);
    let keys: string[] | null = null;
    if (!record || reservationUnfinished(record)) {
      ({ record, keys } = await reserveOrder(
        deps,
        order,
        account,
        {
          id: run.id,
          method: run.method,
          secret: run.secret,
          resumable: run.claim !== null,
          payer: run.payer,
          ledgerHold: run.ledgerHold,
        },
        now,
      ));
    }
    if (record.state === "reserved" && run.authorize) {
      const refusal = await run.authorize(record);
      if (refusal !== null) {
        const released = await releasePurchase(deps, record, refusal.note, now);
        throw await refusal.error(released);
      }
    }
    // A purchase found `charging` was interrupted around the charge: the method decides (through
    // `chargeOptions.repeatable`) whether asking again is safe.
    if (record.state === "reserved" && run.chargeRequest) record = { ...record, charge_request: await run.chargeRequest(record) };
    const reserved = record;
    if (record.state !== "charged")
      record = await chargePurchase(deps, record, (attemptedBefore) => run.charge(reserved, attemptedBefore), now, run.chargeOptions);
    record = await completePurchase(deps, record, now);
    return run.answer(record, keys);
  });
}

/**
 * The purchase an Idempotency-Key names (taken, or found for a retry of the same request); a new
 * purchase id without a key. The same key with another request is 422.
 */
export async function claimByIdempotencyKey(
  deps: DomainDeps,
  input: { idempotencyKey: string | null; fingerprint: string },
  now: number,
): Promise<{ id: string; claim: PurchaseClaim | null }> {
  if (!input.idempotencyKey) return { id: newPurchaseId(), claim: null };
  const claim = await claimPurchase(deps, "idem", input.idempotencyKey, input.fingerprint, now);
  if (!claim) throw idempotencyKeyReused();
  return { id: claim.purchaseId, claim };
}

/** Reserves the order for this account (`reservePurchase`); the method adds what is its own. */
export function reserveOrder(
  deps: DomainDeps,
  order: CheckoutOrder,
  account: PurchaseAccount,
  purchase: Pick<PurchaseRequest, "id" | "method" | "secret" | "resumable" | "payer" | "deferAccount" | "pendingPlace" | "ledgerHold">,
  now: number,
): Promise<Reserved> {
  return reservePurchase(
    deps,
    {
      ...purchase,
      vertical: order.vertical,
      quantity: order.quantity,
      account: account.account,
      createAccount: account.create,
      agentId: order.agentId ?? null,
      contact: order.contact ?? null,
    },
    now,
  );
}
