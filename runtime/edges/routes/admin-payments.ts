/**
 * Payment reconciliation over HTTP (admin bearer), the same function as `vkr payments reconcile`:
 * `GET /api/admin/payments` lists open purchases and those needing an operator without changing
 * anything; `POST /api/admin/payments/reconcile` resolves what a crash left open;
 * `POST /api/admin/payments/acknowledge` marks a refund or an unconfirmed charge as handled, and
 * with `outcome` settles a purchase waiting `unconfirmed` (paid → keys, not_paid → released).
 */

import { guardAdmin } from "../../domain/access/admin.ts";
import {
  AcknowledgedSchema,
  AcknowledgePurchaseSchema,
  PaymentsOverviewSchema,
  ReconcileReportSchema,
} from "../../domain/payments/payment-schemas.ts";
import {
  acknowledgePurchase,
  acknowledgeRefused,
  listPurchasesForOperator,
  reconcilePurchases,
} from "../../domain/payments/purchases/reconcile.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { ADMIN_ERRORS } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const acknowledgeValidator = compileValidator(AcknowledgePurchaseSchema);

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/admin/payments",
    operationId: "listPayments",
    metrics: "request",
    summary: "Open purchases and those needing an operator (admin)",
    description:
      'Admin bearer. Changes nothing. `open`: purchases not in a final state (being worked on, awaiting a card payment, or left by a crash). `attention`: purchases an operator must act on and has not acknowledged: `unconfirmed` (a charge whose outcome was lost; no key until the operator checks with the provider and acknowledges it with `outcome`), `refund_due`, and keys issued on a charge noted as unconfirmed (x402 "nonce used"). The same as `vkr payments list`.',
    security: ["adminBearer"],
    responses: { 200: { description: "Open and attention lists", schema: PaymentsOverviewSchema }, ...ADMIN_ERRORS },
  },
  {
    method: "post",
    path: "/api/admin/payments/reconcile",
    operationId: "reconcilePayments",
    metrics: "request",
    summary: "Finish or undo purchases a crash left open (admin)",
    description:
      "Admin bearer. For each open purchase nobody works on (its lease ran out): `reserved` → released; `awaiting_payment` past its session's expiry → Stripe is asked (paid → keys, else released); `charging` cut off before its charge step → released (nothing was charged); an x402 `charging` → settle asked again with the recorded payment (paid → keys; refused, e.g. expired → released; no answer → left for the next pass); an agent_network `charging` whose charge was attempted → `unconfirmed` (no key; listed in `attention` until the operator acknowledges it with an outcome); `unconfirmed` → left alone; `charged` → keys issued when the buyer can come back for them, else `refund_due`. Every instance also runs this at start and every RECONCILE_INTERVAL_MS. The same as `vkr payments reconcile`.",
    security: ["adminBearer"],
    responses: {
      200: { description: "What was resolved, what stays open, what needs an operator", schema: ReconcileReportSchema },
      ...ADMIN_ERRORS,
    },
  },
  {
    method: "post",
    path: "/api/admin/payments/acknowledge",
    operationId: "acknowledgePayment",
    metrics: "request",
    summary: "Mark a refund due or an unconfirmed charge as handled; settle an unconfirmed purchase (admin)",
    description:
      "Admin bearer. Records the operator's note on a final purchase and drops it from `attention`. A purchase waiting `unconfirmed` needs `outcome` too, what the operator found at the provider: `paid` → its keys are issued (`issued`; the buyer's retry with the same Idempotency-Key gets them, nothing charged again; `refund_due` when no client can come back for them), `not_paid` → `released`, the token's held value given back. The same as `vkr payments ack <id> --note … [--outcome paid|not_paid]`.",
    security: ["adminBearer"],
    body: AcknowledgePurchaseSchema,
    responses: {
      200: { description: "Acknowledged", schema: AcknowledgedSchema },
      404: { description: "No final or unconfirmed purchase with this id" },
      409: {
        description:
          "`conflict`: an `unconfirmed` purchase acknowledged without `outcome`, or an `outcome` for a purchase not waiting for one; `purchase_in_progress`: a request works on the purchase right now",
      },
      ...ADMIN_ERRORS,
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("listPayments", async (event) => {
    await guardAdmin(deps, event);
    return sendJson(event, 200, await listPurchasesForOperator(deps.backend, deps.clock.now()));
  });

  route("reconcilePayments", async (event) => {
    await guardAdmin(deps, event);
    return sendJson(event, 200, await reconcilePurchases(deps, deps.clock.now()));
  });

  route("acknowledgePayment", async (event) => {
    await guardAdmin(deps, event);
    const body = await readJsonBody(event, acknowledgeValidator, deps.config.maxBodyBytes);
    const done = await acknowledgePurchase(deps, body, deps.clock.now());
    if (!done.ok) throw acknowledgeRefused(done.reason, body.id);
    const record = done.record;
    return sendJson(event, 200, {
      id: record.id,
      state: record.state,
      acknowledged_at: record.acknowledged_at,
      operator_note: record.operator_note,
    });
  });
});
