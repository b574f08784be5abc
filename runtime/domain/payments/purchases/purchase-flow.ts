/**
 * The purchases room (`payments/purchases/`) holds what every payment method shares: the checkout
 * order and its price (`checkout-order.ts`, `pricing.ts`, `usd-decimal.ts`, and `checkout-info.ts`
 * for GET /api/checkout), the durable purchase record (`purchase-store.ts`), who owns a purchase
 * (`idempotency.ts`, `purchase-lease.ts`), its keys and sealed answers (`purchase-keys.ts`,
 * `sealed-answer.ts`), the steps below, and `reconcile.ts`. Each method's own checkout lives in
 * its folder under `payments/methods/`; paying per retrieval is `payments/per-use/`.
 *
 * Money moves in one order: reserve (atomically) → charge → issue, with the purchase record
 * written before every outside call (`purchase-store.ts`). The functions here are the steps; the
 * payment methods (`payments/methods/<id>/checkout-*.ts`) and admin issuance compose them, and
 * `reconcile.ts` resumes whatever a crash left open.
 *
 * - `reservePurchase`: the account's slots (and with them the graduated price tier), the cohort
 *   whose price applies (a member's own; a new member's seat in the open cohort, taken now:
 *   `cohorts/cohort-seats.ts`), the keys to be issued (generated now, sealed for the client), all
 *   before any payment. A refusal (account of someone else, cap reached, cohort full) takes
 *   nothing and charges nothing.
 * - `chargePurchase`: the one irreversible call, guarded by a step marker taken right before it,
 *   so it happens at most once per purchase whatever retries or resumers do (a provider that
 *   refuses a second charge of one payment, x402, is asked again instead). A definite refusal
 *   releases the reservation; an unknown outcome (timeout, 5xx) leaves the purchase `charging`.
 * - `completePurchase`: issues the keys; `releasePurchase` gives the slots and the seat back (once) and, when
 *   nothing was charged, a prepaid token's ledger hold; `fenceCharge` tells a purchase cut off
 *   before its charge step (nothing charged, ever) from one whose charge was attempted.
 * - `holdForOperator`: a charge whose outcome cannot be known and cannot be asked again (the
 *   KYAPay charge call has no idempotency key) is never assumed paid: the purchase waits
 *   `unconfirmed`, with no key, until an operator who checked with the provider says paid (keys
 *   issued) or not paid (released, the token's hold given back): `resolveUnconfirmed`.
 */
import { randomBytes } from "node:crypto";
import { type ApiError, apiError, isApiError } from "../../../shared/errors.ts";
import { failpoint } from "../../../shared/failpoint.ts";
import { limitsInForce } from "../../../state/releases/build-ref.ts";
import { releaseSlots, reserveSlots } from "../../accounts/account-slots.ts";
import { readActiveCohort } from "../../cohorts/active-cohort.ts";
import { releaseSeat, seatPurchase } from "../../cohorts/cohort-seats.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { returnPurchaseHold } from "../per-use/token-ledger.ts";
import { keyPriceMicros } from "./pricing.ts";
import { issuePurchaseKeys, prepareKeys } from "./purchase-keys.ts";
import { createPurchaseStore, type PurchaseMethod, type PurchaseRecord } from "./purchase-store.ts";

/** What the purchase steps use: admin issuance and the CLI run them without payment providers. */
export type PurchaseDeps = Pick<DomainDeps, "backend" | "keys" | "build" | "config" | "logger">;

export interface PurchaseRequest {
  id: string;
  method: PurchaseMethod;
  vertical: string;
  quantity: number;
  /** The account the keys join; null only for admin keys issued without an agent or contact. */
  account: string | null;
  /** The purchase creates the account (no proof of an existing one was presented). */
  createAccount: boolean;
  agentId: string | null;
  contact: string | null;
  label?: string | null;
  permanent?: boolean;
  /** Seals the keys for the client; null when they are only ever answered at once. */
  secret: string | null;
  resumable: boolean;
  payer?: Record<string, string>;
  /** Creates the account only at payment (card): priced as a new account, no slot taken now. */
  deferAccount?: boolean;
  /** The client's pending-checkout place held (card). */
  pendingPlace?: string | null;
  /** The prepaid token ledger the purchase will hold part of (`PurchaseRecord.ledger_hold`). */
  ledgerHold?: PurchaseRecord["ledger_hold"];
}

export interface Reserved {
  record: PurchaseRecord;
  /** The keys in clear, for the request that reserved them (never stored unsealed). */
  keys: string[];
}

const CHARGE_ATTEMPTED = "attempted";
const CHARGE_FENCED = "fenced";

/** Refusals a charge attempt can end in that prove nothing was charged. */
const REFUSED_CODES = new Set([
  "payment_failed",
  "payment_token_invalid",
  "payment_token_expired",
  "payment_token_required",
  "payment_token_depleted",
  "checkout_payment_required",
]);

export function newPurchaseId(): string {
  return `pur_${randomBytes(16).toString("hex")}`;
}

/** A lease outlives every outside call a live worker makes (each bounded by PAYMENT_TIMEOUT_MS). */
export function purchaseLeaseMs(deps: Pick<DomainDeps, "config">): number {
  return 3 * deps.config.payments.timeoutMs + 1000;
}

/**
 * A purchase whose reservation was cut off after its first record (slots, price and keys not yet
 * recorded): the request that resumes it runs `reservePurchase` again, which takes the same slots
 * (they are held in the purchase's name) and records the price. Nothing was charged: the charge
 * comes after a complete reservation.
 */
export function reservationUnfinished(record: PurchaseRecord): boolean {
  return record.state === "reserved" && record.key_ids.length === 0;
}

/** Reserves a new purchase; the caller holds its lease (`purchase-lease.ts`). */
export async function reservePurchase(deps: PurchaseDeps, request: PurchaseRequest, now: number): Promise<Reserved> {
  const store = createPurchaseStore(deps.backend);
  const at = new Date(now).toISOString();
  // 1. The record exists (and is listed open) before any slot is taken, so a crash right after
  //    taking slots still leaves something reconciliation finds and releases.
  let record: PurchaseRecord = await store.save(
    {
      id: request.id,
      method: request.method,
      state: "reserved",
      vertical: request.vertical,
      quantity: request.quantity,
      // Until the seat below says which cohort this purchase buys in.
      cohort: await readActiveCohort(deps.backend),
      account: request.account,
      agent_id: request.agentId,
      contact: request.contact,
      label: request.label ?? null,
      permanent: request.permanent ?? false,
      positions: [],
      per_key_usd_micros: [],
      amount_usd_micros: 0,
      resumable: request.resumable,
      key_ids: [],
      key_hashes: [],
      sealed_keys: null,
      payment: { reference: null, charged_usd_micros: null, unconfirmed: null },
      card: null,
      ...(request.deferAccount ? { account_pending: true } : {}),
      ...(request.pendingPlace ? { pending_place: request.pendingPlace } : {}),
      payer: request.payer ?? {},
      ...(request.ledgerHold ? { ledger_hold: request.ledgerHold } : {}),
      history: [],
      created_at: at,
      updated_at: at,
    },
    "reserved",
    now,
    "reserving",
  );
  // 2. The account's slots: the cap and the graduated price tier, atomically.
  const limits = limitsInForce(deps);
  let positions: number[] = [];
  if (request.account !== null && request.deferAccount && request.createAccount) {
    // A new account's slots are 1..n; they are taken when the payment completes.
    positions = Array.from({ length: request.quantity }, (_, i) => i + 1);
  } else if (request.account !== null) {
    const cap = limits.keys_per_account;
    const slots = await reserveSlots(deps.backend, {
      account: request.account,
      quantity: request.quantity,
      cap,
      holder: request.id,
      create: request.createAccount,
      now,
    });
    if (!slots.ok) {
      await store.save(record, "released", now, slots.reason);
      if (slots.reason === "account_exists") throw accountProofRequired(request.account);
      throw apiError("conflict", {
        detail: `An account holds at most ${cap} keys; this one holds ${slots.held} and asked for ${request.quantity} more.`,
        extra: { keys_held: slots.held, max_keys: cap },
      });
    }
    positions = slots.positions;
  }
  // 3. The cohort: a member's own, or a seat of the open cohort for a new member (409 when full).
  let cohortName;
  try {
    cohortName = await seatPurchase(deps, { account: request.account, holder: request.id }, now);
  } catch (error) {
    if (isApiError(error) && error.code === "cohort_full") {
      if (request.account !== null) await releaseSlots(deps.backend, request.account, positions, request.id);
      await store.save(record, "released", now, error.code);
    }
    throw error;
  }
  // 4. The price of exactly those slots in that cohort, and the keys they will hold.
  const cohort = deps.build.current.catalog.cohorts.find((c) => c.name === cohortName)!;
  // Without an account every key is priced as a first key of its own.
  const perKey =
    request.account === null
      ? Array.from({ length: request.quantity }, (_, i) => keyPriceMicros(cohort, i + 1))
      : positions.map((p) => keyPriceMicros(cohort, p));
  const keys = prepareKeys(request.id, request.quantity, request.secret);
  record = {
    ...record,
    cohort: cohortName,
    positions,
    per_key_usd_micros: perKey,
    amount_usd_micros: perKey.reduce((a, b) => a + b, 0),
    key_ids: keys.ids,
    key_hashes: keys.hashes,
    sealed_keys: keys.sealed,
  };
  record = await store.save(record, "reserved", now);
  failpoint(deps.config, "purchase:reserved");
  return { record, keys: keys.keys };
}

export interface ChargeReceipt {
  reference: string | null;
  chargedMicros: number;
  /** Paid, but something the operator should look at (e.g. settled by an earlier attempt, transaction unknown). */
  note?: string;
}

export interface ChargeOptions {
  /**
   * The provider itself refuses a second charge of the same payment (an x402 authorization's
   * nonce settles once), so an interrupted attempt is resolved by asking again rather than by
   * waiting for the operator (`holdForOperator`).
   */
  repeatable?: boolean;
}

/**
 * Runs `charge` at most once for this purchase (a repeatable one: asks again). Returns the
 * `charged` record; throws the refusal (after releasing) or, when the outcome is unknown, a 502
 * (a repeatable charge: retry; otherwise the purchase now waits `unconfirmed` for the operator). `charge` learns whether an earlier attempt of this purchase
 * itself was made (its step was taken before), the only case in which "already used" can mean
 * "paid by us".
 */
export async function chargePurchase(
  deps: PurchaseDeps,
  record: PurchaseRecord,
  charge: (attemptedBefore: boolean) => Promise<ChargeReceipt>,
  now: number,
  options: ChargeOptions = {},
): Promise<PurchaseRecord> {
  const store = createPurchaseStore(deps.backend);
  const charging = await store.save(record, "charging", now);
  failpoint(deps.config, "purchase:charging");
  const step = await store.takeStep(record.id, "charge", CHARGE_ATTEMPTED, now);
  if (!step.taken) {
    // Fenced off by a release (this worker's lease had run out): nothing was or will be charged.
    if (step.mark === CHARGE_FENCED) throw _lapsed(record);
    // The provider's refusal was recorded, but the release after it was cut short: finish it.
    if (charging.charge_refused) {
      await releasePurchase(deps, charging, `payment refused: ${charging.charge_refused}`, now, { chargeRefused: true });
      throw _refusedBefore(record);
    }
    if (!options.repeatable) {
      const held = await holdForOperator(deps, charging, "an earlier attempt was interrupted during the charge", now);
      throw paymentUnconfirmed(held);
    }
  }
  let receipt: ChargeReceipt;
  try {
    failpoint(deps.config, "purchase:before-charge");
    receipt = await charge(!step.taken);
    failpoint(deps.config, "purchase:after-charge");
  } catch (error) {
    if (isApiError(error) && REFUSED_CODES.has(error.code)) {
      // The answer first, so a store error in the release below leaves a refusal for the retry to
      // finish, not an attempted charge of unknown outcome.
      const refused = await store.save({ ...charging, charge_refused: error.code }, "charging", now, `payment refused: ${error.code}`);
      await releasePurchase(deps, refused, `payment refused: ${error.code}`, now, { chargeRefused: true });
      throw error;
    }
    // Maybe charged, maybe not. A method that can ask again (x402) leaves the purchase `charging`
    // for the retry or reconciliation; the others wait for the operator, never assumed paid.
    deps.logger.error("charge outcome unknown", {
      purchase_id: record.id,
      reason: error instanceof Error ? error.message : String(error),
    });
    if (!options.repeatable) {
      await holdForOperator(deps, charging, `charge outcome unknown: ${isApiError(error) ? error.code : "error"}`, now);
      throw apiError("payment_gateway_error", {
        detail:
          "The payment provider did not confirm the charge, and it cannot be asked again. No key is issued until an operator has confirmed the payment with the provider; you will not be charged twice.",
        extra: { purchase_id: record.id },
      });
    }
    throw apiError("payment_gateway_error", {
      detail: record.resumable
        ? "The payment provider did not confirm the charge. Send the same request with the same Idempotency-Key again: you will not be charged twice."
        : "The payment provider did not confirm the charge. It is recorded for reconciliation; you will not be charged twice for it.",
      extra: { purchase_id: record.id },
    });
  }
  if (receipt.note)
    deps.logger.error("charge unconfirmed; check it with the provider", {
      purchase_id: record.id,
      method: record.method,
      amount_usd_micros: record.amount_usd_micros,
      ...record.payer,
      reason: receipt.note,
    });
  const charged = await store.save(
    {
      ...charging,
      payment: { reference: receipt.reference, charged_usd_micros: receipt.chargedMicros, unconfirmed: receipt.note ?? null },
    },
    "charged",
    now,
    receipt.note,
  );
  failpoint(deps.config, "purchase:charged");
  return charged;
}

/**
 * A charge that may or may not have happened and cannot be asked again: no key until an operator
 * has checked with the provider (`resolveUnconfirmed`); listed for the operator meanwhile.
 */
export async function holdForOperator(deps: PurchaseDeps, record: PurchaseRecord, reason: string, now: number): Promise<PurchaseRecord> {
  deps.logger.error("charge outcome unknown; waiting for the operator to confirm it with the provider", {
    purchase_id: record.id,
    method: record.method,
    amount_usd_micros: record.amount_usd_micros,
    ...record.payer,
    reason,
  });
  const store = createPurchaseStore(deps.backend);
  return store.save({ ...record, payment: { ...record.payment, unconfirmed: reason } }, "unconfirmed", now, reason);
}

/** What a buyer hears about a purchase waiting `unconfirmed`. */
export function paymentUnconfirmed(record: PurchaseRecord): ApiError {
  return apiError("payment_unconfirmed", {
    detail: `The charge of purchase ${record.id} could not be confirmed, and no key is issued until it is. An operator is checking it with the payment provider: send this request again later with the same Idempotency-Key to get the keys if it was paid (you will not be charged again); if it was not, the purchase is released and the token's value is spendable again.`,
    extra: { purchase_id: record.id },
  });
}

/**
 * The operator's answer for an `unconfirmed` purchase, after checking with the provider: paid →
 * charged and its keys issued (or `refund_due` when no client can come back for them); not paid →
 * released, a prepaid token's hold given back. The caller holds the purchase's lease.
 */
export async function resolveUnconfirmed(
  deps: PurchaseDeps,
  record: PurchaseRecord,
  paid: boolean,
  note: string,
  now: number,
): Promise<PurchaseRecord> {
  const store = createPurchaseStore(deps.backend);
  if (!paid) return releasePurchase(deps, record, `operator: not paid (${note})`, now, { chargeRefused: true });
  const charged = await store.save(
    {
      ...record,
      payment: {
        reference: record.payment.reference ?? record.payer.jti ?? null,
        charged_usd_micros: record.amount_usd_micros,
        unconfirmed: null,
      },
    },
    "charged",
    now,
    `operator: paid (${note})`,
  );
  if (!record.resumable)
    return releasePurchase(deps, charged, "operator: paid, but the buyer cannot come back for the keys", now, { state: "refund_due" });
  return completePurchase(deps, charged, now);
}

/** Issues the keys of a charged (or free, admin) purchase; idempotent. */
export async function completePurchase(deps: PurchaseDeps, record: PurchaseRecord, now: number): Promise<PurchaseRecord> {
  await issuePurchaseKeys(deps, record, now);
  const issued = await createPurchaseStore(deps.backend).save(record, "issued", now);
  failpoint(deps.config, "purchase:issued");
  deps.logger.info("keys issued", {
    source: record.method === "admin" ? "admin" : "checkout",
    method: record.method,
    purchase_id: record.id,
    key_ids: record.key_ids,
    ...record.payer,
    unconfirmed: record.payment.unconfirmed ?? undefined,
  });
  return issued;
}

/**
 * Fences charging off for good when no charge was ever attempted: true when nothing was (or ever
 * will be) charged for this purchase, false when an attempt came first.
 */
export async function fenceCharge(deps: PurchaseDeps, record: PurchaseRecord, now: number): Promise<boolean> {
  const fence = await createPurchaseStore(deps.backend).takeStep(record.id, "charge", CHARGE_FENCED, now);
  return fence.taken || fence.mark === CHARGE_FENCED;
}

/**
 * Gives the reservation back (once) and ends the purchase; any key already written is revoked and,
 * when nothing was charged, a prepaid token's ledger gets its hold back.
 * Unless the provider refused this purchase's own charge (or an operator found it unpaid), charging
 * is fenced off first: if a charge was already attempted, nothing is released and the purchase
 * waits for the operator instead, since money may have moved.
 */
export async function releasePurchase(
  deps: PurchaseDeps,
  record: PurchaseRecord,
  reason: string,
  now: number,
  options: { chargeRefused?: boolean; state?: "released" | "refund_due" } = {},
): Promise<PurchaseRecord> {
  const store = createPurchaseStore(deps.backend);
  const state = options.state ?? "released";
  if (!options.chargeRefused && state === "released" && !(await fenceCharge(deps, record, now)))
    return holdForOperator(deps, record, `release refused: a charge was attempted (${reason})`, now);
  // Before the release step, so a store error in between leaves it for the retry: the give-back
  // moves the ledger and the hold in one step and does nothing once the hold is empty.
  if (state === "released") await returnPurchaseHold(deps, record, now);
  if ((await store.takeStep(record.id, "release", String(now), now)).taken) {
    for (const hash of record.key_hashes) {
      const key = await deps.keys.get(hash);
      if (key && key.status === "active") await deps.keys.put({ ...key, status: "revoked", revoked_at: new Date(now).toISOString() });
    }
    // Every slot number, not only the recorded ones: a crash between taking slots and recording
    // them must not leak any. Compare-and-delete frees only this purchase's own.
    if (record.account !== null) {
      const cap = limitsInForce(deps).keys_per_account;
      await releaseSlots(
        deps.backend,
        record.account,
        Array.from({ length: cap }, (_, i) => i + 1),
        record.id,
      );
      await releaseSeat(deps, record.id, now);
    }
  }
  const released = await store.save(record, state, now, reason);
  if (state === "refund_due")
    deps.logger.error("purchase needs a refund", {
      purchase_id: record.id,
      method: record.method,
      amount_usd_micros: record.amount_usd_micros,
      ...record.payer,
      reason,
    });
  return released;
}

export function accountProofRequired(account: string): ApiError {
  return apiError("account_proof_required", {
    detail: `The account "${account.slice(0, 64)}" already exists. Send a live membership key of that account in X-Service-Key to buy for it, or use another agent_id.`,
  });
}

// --- Internal helpers ---

function _refusedBefore(record: PurchaseRecord): ApiError {
  return apiError("payment_failed", {
    detail: `The payment provider refused the charge of purchase ${record.id}; nothing was charged and the purchase is released. Send the request again.`,
  });
}

function _lapsed(record: PurchaseRecord): ApiError {
  return apiError("payment_failed", {
    detail: `Purchase ${record.id} was released before it was charged (it took too long); nothing was charged. Send the request again.`,
  });
}
