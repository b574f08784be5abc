/**
 * The audit entries of a purchase's change of state, written by the purchase store's `save`
 * (the one place a purchase record changes state), so every path of every payment method is
 * covered by one call: `purchase.<state>`, `purchase.refunded` / `purchase.acknowledged` when an
 * operator marks a final purchase handled, and `key.issued` for each key a purchase issues.
 */

import type { StateBackend } from "../../state/storage/backend.ts";
import type { PurchaseRecord, PurchaseState } from "../payments/purchases/purchase-store.ts";
import { type AuditAction, appendAudit } from "./audit-log.ts";

export async function auditPurchase(backend: StateBackend, before: PurchaseRecord, state: PurchaseState, now: number): Promise<void> {
  const acknowledged = before.acknowledged_at !== undefined && state === before.state;
  const action: AuditAction = acknowledged ? (state === "refund_due" ? "purchase.refunded" : "purchase.acknowledged") : `purchase.${state}`;
  const actor = acknowledged ? "operator" : before.method === "admin" ? "admin" : `payment:${before.method}`;
  const common = { actor, account: before.account, outcome: state };
  await appendAudit(
    backend,
    {
      ...common,
      action,
      subject: `purchase:${before.id}`,
      key_ids: before.key_ids,
      detail: {
        method: before.method,
        vertical: before.vertical,
        quantity: before.quantity,
        amount_usd_micros: before.amount_usd_micros,
        charged_usd_micros: before.payment.charged_usd_micros,
        unconfirmed: before.payment.unconfirmed !== null,
      },
    },
    now,
  );
  if (state === "issued" && !acknowledged)
    for (const id of before.key_ids)
      await appendAudit(
        backend,
        {
          ...common,
          outcome: "ok",
          action: "key.issued",
          subject: `key:${id}`,
          key_ids: [id],
          detail: { purchase: before.id, source: before.method === "admin" ? "admin" : "checkout" },
        },
        now,
      );
}
