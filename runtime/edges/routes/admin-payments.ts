/**
 * Payment reconciliation over HTTP (admin bearer), the same function as `vkr payments reconcile`:
 * `GET /api/admin/payments` lists open purchases and those needing an operator without changing
 * anything; `POST /api/admin/payments/reconcile` resolves what a crash left open;
 * `POST /api/admin/payments/acknowledge` marks a refund or an unconfirmed charge as handled, and
 * with `outcome` settles a purchase waiting `unconfirmed` (paid → keys, not_paid → released).
 */

import { guardAdmin } from "../../domain/access/admin.ts";
import { AcknowledgePurchaseSchema } from "../../domain/payments/payment-schemas.ts";
import {
  acknowledgePurchase,
  acknowledgeRefused,
  listPurchasesForOperator,
  reconcilePurchases,
} from "../../domain/payments/purchases/reconcile.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { defineRoutes } from "./route-table.ts";

const acknowledgeValidator = compileValidator(AcknowledgePurchaseSchema);

export default defineRoutes((route, deps) => {
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
