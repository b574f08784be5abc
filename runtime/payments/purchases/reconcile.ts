/**
 * Reconciliation: finishes or undoes every purchase a crash (or a lost provider answer) left in a
 * non-final state, and lists what an operator must look at. Run by `vkr payments reconcile`, by
 * POST /api/admin/payments/reconcile, at server start and every RECONCILE_INTERVAL_MS.
 *
 * Only purchases nobody works on are touched (their lease has run out); for each, by state:
 * - `reserved` (never charged): released, and charging fenced off for good;
 * - `awaiting_payment` (a method paid elsewhere, such as card): its method's `awaiting` hook decides
 *   (`methods/payment-method.ts`; card leaves it alone until its Stripe session expires, then asks
 *   Stripe: paid → keys issued, otherwise released);
 * - `charging`: cut off before the charge step was taken → released (charging fenced off, nothing
 *   was charged). Otherwise the charge may or may not have happened: a method whose provider can
 *   be asked again (x402: `chargeAgain`) is asked, never assumed paid (paid → keys issued; refused
 *   → released; no answer → left for the next pass); for one that cannot (the KYAPay charge call
 *   takes no idempotency key), the keys are issued when the client can come back for them, the
 *   charge resolved in the buyer's favour and flagged, else the purchase becomes `refund_due`;
 * - `charged`: keys issued when the client can come back for them, else `refund_due`.
 *
 * "Attention" lists final purchases an operator must act on and has not acknowledged: refunds due
 * and charges that could not be confirmed.
 */
import { randomUUID } from "node:crypto";
import type { AppDeps } from "../../deps.ts";
import { findPaymentMethod } from "../methods/registry.ts";
import { isApiError } from "../../errors.ts";
import {
  chargePurchase,
  completePurchase,
  fenceCharge,
  purchaseLeaseMs,
  releasePurchase,
  resolveUnknownCharge,
  type ChargeReceipt,
  type PurchaseDeps,
} from "./purchase-flow.ts";
import { createPurchaseStore, FINAL_STATES, type PurchaseRecord } from "./purchase-store.ts";

export type ReconcileDeps = PurchaseDeps & Pick<AppDeps, "payments">;

export interface ReconcileEntry {
  id: string;
  method: PurchaseRecord["method"];
  state: PurchaseRecord["state"];
  account: string | null;
  amount_usd_micros: number;
  created_at: string;
  /** What this pass did, or why it left the purchase alone. */
  action: string;
  unconfirmed: string | null;
  payer: Record<string, string>;
}

export interface ReconcileReport {
  /** Purchases this pass moved to a final state. */
  resolved: ReconcileEntry[];
  /** Open purchases left alone (being worked on, or a card session still open). */
  open: ReconcileEntry[];
  /** Final purchases that need an operator: refunds due, unconfirmed charges. */
  attention: ReconcileEntry[];
}

/**
 * `attention: false` skips listing attention items: that list reads every final purchase ever
 * made, which an operator asking once can afford and a timer on every instance cannot.
 */
export async function reconcilePurchases(
  deps: ReconcileDeps,
  now: number,
  options: { attention?: boolean } = {},
): Promise<ReconcileReport> {
  const store = createPurchaseStore(deps.backend);
  const report: ReconcileReport = { resolved: [], open: [], attention: [] };
  for (const record of await store.listOpen()) {
    const holder = randomUUID();
    if (!(await store.lease(record.id, holder, purchaseLeaseMs(deps), now))) {
      report.open.push(_entry(record, "in progress (another worker holds it)"));
      continue;
    }
    try {
      const current = (await store.get(record.id))!;
      const outcome = await _resolve(deps, current, now);
      if (FINAL_STATES.has(outcome.record.state)) report.resolved.push(_entry(outcome.record, outcome.action));
      else report.open.push(_entry(outcome.record, outcome.action));
    } catch (error) {
      report.open.push(_entry(record, `failed: ${error instanceof Error ? error.message : String(error)}`));
    } finally {
      await store.unlease(record.id, holder);
    }
  }
  if (options.attention !== false) report.attention = await _attention(store);
  return report;
}

/** What an operator should see now, changing nothing: open purchases and attention items. */
export async function listPurchasesForOperator(backend: AppDeps["backend"], now: number): Promise<Omit<ReconcileReport, "resolved">> {
  const store = createPurchaseStore(backend);
  const open = (await store.listOpen()).map((r) =>
    _entry(r, r.state === "awaiting_payment" ? (findPaymentMethod(r.method)?.awaiting?.status(r, now) ?? "open") : "open"),
  );
  return { open, attention: await _attention(store) };
}

/** Marks an attention item as handled by the operator (kept for audit). */
export async function acknowledgePurchase(
  backend: AppDeps["backend"],
  id: string,
  note: string,
  now: number,
): Promise<PurchaseRecord | null> {
  const store = createPurchaseStore(backend);
  const record = await store.get(id);
  if (!record || !FINAL_STATES.has(record.state)) return null;
  return store.save(
    { ...record, acknowledged_at: new Date(now).toISOString(), operator_note: note },
    record.state,
    now,
    `acknowledged: ${note}`,
  );
}

/**
 * Runs reconciliation now and then every `intervalMs` (unref'd); errors are logged, never thrown.
 * Returns a stop function.
 */
export function startReconciler(deps: ReconcileDeps & Pick<AppDeps, "clock">, intervalMs: number): () => void {
  let running: Promise<void> | null = null;
  const pass = () => {
    running ??= reconcilePurchases(deps, deps.clock.now(), { attention: false })
      .then((report) => {
        if (report.resolved.length)
          deps.logger.warn("purchases reconciled", { resolved: report.resolved.map((e) => `${e.id}: ${e.action}`) });
      })
      .catch((error: unknown) =>
        deps.logger.error("reconciliation failed", { reason: error instanceof Error ? error.message : String(error) }),
      )
      .finally(() => (running = null));
  };
  pass();
  const timer = setInterval(pass, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

// --- Internal helpers ---

async function _resolve(deps: ReconcileDeps, record: PurchaseRecord, now: number): Promise<{ record: PurchaseRecord; action: string }> {
  switch (record.state) {
    case "reserved":
      return { record: await releasePurchase(deps, record, "reconciled: never charged", now), action: "released (never charged)" };
    case "awaiting_payment": {
      const awaiting = findPaymentMethod(record.method)?.awaiting;
      if (!awaiting)
        return {
          record: await releasePurchase(deps, record, "reconciled: its method awaits no payment", now),
          action: "released (its method awaits no payment)",
        };
      return awaiting.reconcile(deps, record, now);
    }
    case "charging": {
      // Cut off before the charge step was taken: nothing was (or now ever will be) charged.
      if (await fenceCharge(deps, record, now))
        return {
          record: await releasePurchase(deps, record, "reconciled: the charge was never attempted", now),
          action: "released (never charged)",
        };
      const chargeAgain = findPaymentMethod(record.method)?.chargeAgain;
      if (chargeAgain) return _chargeAgain(deps, record, chargeAgain(deps, record), now);
      if (!record.resumable)
        return {
          record: await releasePurchase(
            deps,
            record,
            "reconciled: charge outcome unknown and the buyer cannot come back for the keys",
            now,
            { state: "refund_due" },
          ),
          action: "refund due (charge outcome unknown)",
        };
      const charged = await resolveUnknownCharge(deps, record, "reconciled: charge outcome unknown", now);
      return { record: await _issue(deps, charged, now), action: "keys issued (charge unconfirmed: resolved in the buyer's favour)" };
    }
    case "charged":
      if (!record.resumable)
        return {
          record: await releasePurchase(deps, record, "reconciled: charged, but the buyer cannot come back for the keys", now, {
            state: "refund_due",
          }),
          action: "refund due (charged, keys undeliverable)",
        };
      return { record: await _issue(deps, record, now), action: "keys issued" };
    default:
      return { record, action: "final" };
  }
}

/**
 * A charge that can be asked again (x402): asked, never assumed. Paid: keys issued; refused (an
 * expired authorization, say): released, no keys; no answer: left `charging` for the next pass.
 */
async function _chargeAgain(
  deps: ReconcileDeps,
  record: PurchaseRecord,
  charge: ((attemptedBefore: boolean) => Promise<ChargeReceipt>) | null,
  now: number,
): Promise<{ record: PurchaseRecord; action: string }> {
  if (!charge)
    return {
      record: await releasePurchase(deps, record, "reconciled: charge outcome unknown and nothing recorded to ask again", now, {
        state: "refund_due",
      }),
      action: "refund due (charge outcome unknown, cannot be asked again)",
    };
  try {
    const charged = await chargePurchase(deps, record, charge, now, { repeatable: true });
    return { record: await _issue(deps, charged, now), action: "keys issued (charge asked again and confirmed)" };
  } catch (error) {
    const current = (await createPurchaseStore(deps.backend).get(record.id)) ?? record;
    const code = isApiError(error) ? error.code : "error";
    if (current.state === "released") return { record: current, action: `released (charge refused: ${code})` };
    return { record: current, action: `charge outcome still unknown (${code}); asked again next pass` };
  }
}

/** Issues the keys; a method paid elsewhere also delivers them (card mails them once), as its own fulfilment would have. */
async function _issue(deps: ReconcileDeps, record: PurchaseRecord, now: number): Promise<PurchaseRecord> {
  const issued = await completePurchase(deps, record, now);
  await findPaymentMethod(record.method)?.awaiting?.issued?.(deps, issued, now);
  return issued;
}

async function _attention(store: ReturnType<typeof createPurchaseStore>): Promise<ReconcileEntry[]> {
  const attention: ReconcileEntry[] = [];
  for (const record of await store.list({ states: FINAL_STATES })) {
    if (record.acknowledged_at) continue;
    if (record.state === "refund_due") attention.push(_entry(record, "refund the buyer"));
    else if (record.state === "issued" && record.payment.unconfirmed)
      attention.push(_entry(record, "confirm the charge with the provider"));
  }
  return attention;
}

function _entry(record: PurchaseRecord, action: string): ReconcileEntry {
  return {
    id: record.id,
    method: record.method,
    state: record.state,
    account: record.account,
    amount_usd_micros: record.amount_usd_micros,
    created_at: record.created_at,
    action,
    unconfirmed: record.payment.unconfirmed,
    payer: record.payer,
  };
}
