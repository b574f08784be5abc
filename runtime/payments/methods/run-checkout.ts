/**
 * The checkout state machine, written once for every method that pays at once: under the
 * purchase's claim, load its record; answer an issued purchase again, refuse a released or
 * refund-due one; else reserve (a durable record before any outside call), let the method
 * authorize the payment while the purchase is only reserved (a refusal releases it), charge at
 * most once (`chargePurchase`), issue, and answer. A method supplies only what is its own: the
 * claim, the payer, the authorization, the charge call and the answer.
 */
import type { PurchaseAccount } from "../../accounts/purchase-account.ts";
import type { AppDeps } from "../../deps.ts";
import type { ApiError } from "../../errors.ts";
import type { CheckoutOrder } from "../purchases/checkout-order.ts";
import type { PurchaseClaim, SavedResponse } from "../purchases/idempotency.ts";
import {
  chargePurchase,
  completePurchase,
  releasePurchase,
  reservePurchase,
  type ChargeOptions,
  type ChargeReceipt,
} from "../purchases/purchase-flow.ts";
import { finishClaimed } from "../purchases/purchase-lease.ts";
import { createPurchaseStore, type PurchaseRecord } from "../purchases/purchase-store.ts";
import type { PaymentMethodId } from "./method-ids.ts";

export interface CheckoutRun {
  method: PaymentMethodId;
  id: string;
  claim: PurchaseClaim | null;
  inProgress: Parameters<typeof finishClaimed>[1]["inProgress"];
  /** Seals the keys until the buyer presents it again; the payer's public identity for the record. */
  secret: string;
  payer: Record<string, string>;
  /**
   * Runs while the purchase is only reserved, before the charge: null to go on, else the reason it
   * is refused (the driver releases the purchase, then throws `refused(reason)`).
   */
  authorize?(record: PurchaseRecord): Promise<string | null>;
  refused?(record: PurchaseRecord, reason: string): Promise<ApiError>;
  /** The one outside call that takes the money; `resumed` when an earlier attempt was interrupted around it. */
  charge(record: PurchaseRecord, resumed: boolean): Promise<ChargeReceipt>;
  chargeOptions?: ChargeOptions;
  answer(record: PurchaseRecord, fresh: string[] | null): Promise<SavedResponse>;
  /** An earlier attempt of this purchase was refused and nothing was charged. */
  earlierRefused(): ApiError;
  refundDue(record: PurchaseRecord): ApiError;
}

export async function runCheckout(
  deps: AppDeps,
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
    let keys: string[] | null = null;
    if (!record) {
      ({ record, keys } = await reservePurchase(
        deps,
        {
          id: run.id,
          method: run.method,
          vertical: order.vertical,
          quantity: order.quantity,
          cohort: order.cohort,
          account: account.account,
          createAccount: account.create,
          agentId: order.agentId ?? null,
          contact: order.contact ?? null,
          secret: run.secret,
          resumable: run.claim !== null,
          payer: run.payer,
        },
        now,
      ));
    }
    if (record.state === "reserved" && run.authorize) {
      const reason = await run.authorize(record);
      if (reason !== null) {
        const released = await releasePurchase(deps, record, `payment refused: ${reason}`, now);
        throw await run.refused!(released, reason);
      }
    }
    // A purchase found `charging` was interrupted around the charge: the method decides (through
    // `chargeOptions.repeatable`) whether asking again is safe.
    const resumed = record.state === "charging";
    const reserved = record;
    if (record.state !== "charged")
      record = await chargePurchase(deps, record, () => run.charge(reserved, resumed), now, run.chargeOptions);
    record = await completePurchase(deps, record, now);
    return run.answer(record, keys);
  });
}
