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
 *   takes no idempotency key) the purchase becomes `unconfirmed`: no key until an operator says;
 * - `unconfirmed`: left alone; the operator checks with the provider and answers paid or not paid
 *   (`acknowledgePurchase` with an outcome);
 * - `charged`: keys issued when the client can come back for them, else `refund_due`.
 *
 * "Attention" lists what an operator must act on and has not acknowledged: charges waiting for
 * confirmation, refunds due, and issued purchases whose charge was noted as unconfirmed.
 */
import { randomUUID } from "node:crypto";
import { type ApiError, apiError, isApiError } from "../../../shared/errors.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { findPaymentMethod } from "../methods/registry.ts";
import {
  type ChargeReceipt,
  chargePurchase,
  completePurchase,
  fenceCharge,
  holdForOperator,
  type PurchaseDeps,
  purchaseLeaseMs,
  releasePurchase,
  resolveUnconfirmed,
} from "./purchase-flow.ts";
import { createPurchaseStore, FINAL_STATES, type PurchaseRecord } from "./purchase-store.ts";

export type ReconcileDeps = PurchaseDeps & Pick<DomainDeps, "payments">;

/** What the operator does with a purchase waiting `unconfirmed`. */
const UNCONFIRMED_ACTION =
  "charge unconfirmed, no key issued: check with the provider whether the token (payer jti) was charged the amount, then `vkr payments ack <id> --outcome paid|not_paid`";
const ATTENTION_STATES: ReadonlySet<PurchaseRecord["state"]> = new Set([...FINAL_STATES, "unconfirmed"]);

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
export async function listPurchasesForOperator(backend: DomainDeps["backend"], now: number): Promise<Omit<ReconcileReport, "resolved">> {
  const store = createPurchaseStore(backend);
  const open = (await store.listOpen()).map((r) =>
    _entry(
      r,
      r.state === "awaiting_payment"
        ? (findPaymentMethod(r.method)?.awaiting?.status(r, now) ?? "open")
        : r.state === "unconfirmed"
          ? UNCONFIRMED_ACTION
          : "open",
    ),
  );
  return { open, attention: await _attention(store) };
}

export type OperatorOutcome = "paid" | "not_paid";

export type Acknowledged =
  | { ok: true; record: PurchaseRecord }
  | { ok: false; reason: "not_found" | "outcome_required" | "outcome_not_applicable" | "in_progress" };

/**
 * Marks an attention item as handled by the operator (kept for audit). A purchase waiting
 * `unconfirmed` needs the operator's finding too: `paid` issues its keys (the buyer's retry with
 * the same Idempotency-Key gets them), `not_paid` releases it and gives the token's hold back.
 */
export async function acknowledgePurchase(
  deps: PurchaseDeps,
  input: { id: string; note: string; outcome?: OperatorOutcome | undefined },
  now: number,
): Promise<Acknowledged> {
  const store = createPurchaseStore(deps.backend);
  let record = await store.get(input.id);
  if (!record || (!FINAL_STATES.has(record.state) && record.state !== "unconfirmed")) return { ok: false, reason: "not_found" };
  if (record.state !== "unconfirmed" && input.outcome) return { ok: false, reason: "outcome_not_applicable" };
  if (record.state === "unconfirmed") {
    if (!input.outcome) return { ok: false, reason: "outcome_required" };
    const holder = randomUUID();
    if (!(await store.lease(record.id, holder, purchaseLeaseMs(deps), now))) return { ok: false, reason: "in_progress" };
    try {
      record = (await store.get(record.id))!;
      if (record.state !== "unconfirmed") return { ok: false, reason: "outcome_not_applicable" };
      record = await resolveUnconfirmed(deps, record, input.outcome === "paid", input.note, now);
    } finally {
      await store.unlease(record.id, holder);
    }
    // Paid but undeliverable: the refund it now needs stays on the operator's list.
    if (record.state === "refund_due") return { ok: true, record };
  }
  return {
    ok: true,
    record: await store.save(
      { ...record, acknowledged_at: new Date(now).toISOString(), operator_note: input.note },
      record.state,
      now,
      `acknowledged: ${input.note}`,
    ),
  };
}

/** Why an acknowledgement was refused, as the admin route answers it (the CLI prints the same). */
export function acknowledgeRefused(reason: Extract<Acknowledged, { ok: false }>["reason"], id: string): ApiError {
  const shown = id.slice(0, 80);
  switch (reason) {
    case "not_found":
      return apiError("not_found", { detail: `No final or unconfirmed purchase "${shown}".` });
    case "outcome_required":
      return apiError("conflict", {
        detail: `Purchase ${shown} waits for its charge to be confirmed: check with the provider, then send outcome "paid" or "not_paid".`,
      });
    case "outcome_not_applicable":
      return apiError("conflict", {
        detail: `Purchase ${shown} is not waiting for a charge to be confirmed; acknowledge it without an outcome.`,
      });
    case "in_progress":
      return apiError("purchase_in_progress", { detail: `Purchase ${shown} is being worked on; try again in a few seconds.` });
  }
}

/**
 * Runs reconciliation now and then every `intervalMs` (unref'd); errors are logged, never thrown.
 * Returns a stop function.
 */
export function startReconciler(deps: ReconcileDeps & Pick<DomainDeps, "clock">, intervalMs: number): () => void {
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
      return {
        record: await holdForOperator(deps, record, "reconciled: charge outcome unknown", now),
        action: UNCONFIRMED_ACTION,
      };
    }
    case "unconfirmed":
      return { record, action: UNCONFIRMED_ACTION };
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
  for (const record of await store.list({ states: ATTENTION_STATES })) {
    if (record.acknowledged_at) continue;
    if (record.state === "unconfirmed") attention.push(_entry(record, UNCONFIRMED_ACTION));
    else if (record.state === "refund_due") attention.push(_entry(record, "refund the buyer"));
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
