/**
 * Checkout with `payment_method: "http402"` (x402). Without a payment header: 402 with our
 * requirements (v1 in the body, v2 in PAYMENT-REQUIRED). With one: decode, check it against OUR
 * requirements, claim its (network, payer, nonce) so it can be used once, verify and settle through
 * the facilitator with our requirements, and only then issue the keys. The 201 is saved against
 * the nonce, sealed under the payment's signature (`sealed-answer.ts`), so the same payment sent
 * again gets the same answer and never a second set of keys, while the store holds no key in clear.
 *
 * Crash recovery. Each step leaves a record, so a request that finds an earlier one unfinished
 * can tell how far it got:
 * - `x402:<id>`          the claim, a lease (see `_leaseMs`): a crashed holder does not block forever.
 * - `x402-settling:<id>` written before settle is called and kept until its outcome is known; a
 *                        later attempt that finds it must treat a refusal as "maybe already paid".
 * - `x402-settled:<id>`  the receipt and the order, written before any key is issued; whoever next
 *                        holds the claim finishes the issuance from it.
 * - `x402-issue:<id>`    insert-once lease around issuing, so two finishers cannot both issue.
 * - `x402-result:<id>`   the sealed 201.
 * The settling, settled and result records are all sealed under the signature: they speak only to
 * the header that made them, so another header with the same (network, payer, nonce) can neither
 * finish someone's purchase for itself nor mark it unconfirmed.
 */
import type { AppDeps } from "../deps.ts";
import { apiError } from "../errors.ts";
import { formatUsd } from "../money.ts";
import { describeQuote, digestOf, type CheckoutOrder } from "./checkout-order.ts";
import type { SavedResponse } from "./idempotency.ts";
import { describeIssuedKeys, issuePurchasedKeys, type PurchasedKeysInput } from "./issue-purchased-keys.ts";
import { openAnswer, sealAnswer } from "./sealed-answer.ts";
import { buildRequirements, decodePaymentHeader, encodeHeader, mismatchReason, type DecodedPayment, type Requirements } from "./x402-requirements.ts";

/** What a successful settle bought, recorded before issuing so a retry can finish the issuance. */
interface X402Settlement {
  receipt: { success: true; transaction: string; network: string; payer: string };
  responseHeader: "payment-response" | "x-payment-response";
  order: PurchasedKeysInput;
  quote: ReturnType<typeof describeQuote>;
}

interface SettlingMarker {
  at: number;
  /** Set when a later attempt found the payment refused: it may have been paid without keys. */
  unconfirmed?: string;
}

/** No claim outlives this unless the facilitator timeout is longer (verify + settle + issue). */
const MIN_LEASE_MS = 120_000;

export async function checkoutWithX402(deps: AppDeps, order: CheckoutOrder, request: { headers: Headers; resourceUrl: string }, now: number): Promise<SavedResponse> {
  const x402 = deps.payments.x402;
  if (!x402) throw apiError("payment_provider_unavailable", { detail: "HTTP 402 (x402) payments are not configured on this deployment." });
  const description = `${order.quantity} ${order.vertical} membership key${order.quantity === 1 ? "" : "s"}, first month (${formatUsd(order.quote.totalMicros)})`;
  const requirements = buildRequirements(x402, order.quote.totalMicros, { url: request.resourceUrl, description });
  const payment = _presentedPayment(request.headers);
  if (!payment) throw _paymentRequired(requirements, order, "X-PAYMENT header is required");

  const responseHeader = payment.version === 2 ? "payment-response" : "x-payment-response";
  const mismatch = mismatchReason(payment, requirements, now);
  if (mismatch) throw _paymentRequired(requirements, order, mismatch);

  // One use per signed authorization: the nonce claim is taken before the facilitator is called.
  const id = _paymentId(payment);
  const claim = await deps.backend.insertOnce(`x402:${id}`, "claimed", now + _leaseMs(deps), now);
  // Looked at again under the claim: an earlier request may have got further since `resumeX402`.
  const earlier = await _findEarlier(deps, payment);
  if (earlier.kind === "not_ours") throw _paymentRequired(requirements, order, "invalid_exact_evm_payload_authorization_nonce_used");
  if (earlier.kind === "answer") return earlier.answer;
  if (earlier.kind === "unconfirmed") {
    if (claim.created) await deps.backend.removeOnce(`x402:${id}`);
    throw _unconfirmedError(earlier.reason);
  }
  if (!claim.created) throw apiError("payment_in_progress", { headers: { "retry-after": "2" } });
  if (earlier.kind === "settled") return _issueFromSettlement(deps, payment, earlier.settlement, now);

  // An earlier holder called settle and never learned the outcome (crash or timeout).
  const retaken = Boolean(await _readSealed<SettlingMarker>(deps, "x402-settling", payment));
  const facilitatorRequest = { x402Version: payment.version, paymentPayload: payment.payload, paymentRequirements: payment.version === 2 ? requirements.v2 : requirements.v1 };
  let verified;
  try {
    verified = await x402.facilitator.verify(facilitatorRequest);
  } catch (error) {
    // verify consumes nothing: the authorization may be presented again at once.
    await deps.backend.removeOnce(`x402:${id}`);
    throw error;
  }
  if (!verified.isValid) {
    const reason = verified.invalidReason ?? "invalid_payment";
    if (retaken) throw await _unconfirmed(deps, payment, reason, now);
    await deps.backend.removeOnce(`x402:${id}`);
    throw _paymentRequired(requirements, order, reason);
  }

  await _writeSealed<SettlingMarker>(deps, "x402-settling", payment, { at: now });
  let settled;
  try {
    settled = await x402.facilitator.settle(facilitatorRequest);
  } catch (error) {
    // Outcome unknown (it may land on chain): the marker stays, so the next attempt re-verifies
    // and reports a refusal as "maybe paid" rather than as a plain 402.
    await deps.backend.removeOnce(`x402:${id}`);
    throw error;
  }
  if (!settled.success) {
    const failure = { success: false, errorReason: settled.errorReason ?? "settlement_failed", transaction: settled.transaction, network: settled.network || payment.network, payer: settled.payer };
    if (retaken) throw await _unconfirmed(deps, payment, failure.errorReason, now);
    // Not settled: the authorization was not used, so it may be presented again.
    await deps.backend.records.removeItem(`x402-settling:${id}`);
    await deps.backend.removeOnce(`x402:${id}`);
    throw _paymentRequired(requirements, order, failure.errorReason, { [responseHeader]: encodeHeader(failure) });
  }

  const settlement: X402Settlement = {
    receipt: { success: true, transaction: settled.transaction, network: settled.network || payment.network, payer: settled.payer ?? payment.authorization.from },
    responseHeader,
    order: { vertical: order.vertical, quantity: order.quantity, cohort: order.quote.cohort, agentId: order.agentId, contact: order.contact },
    quote: describeQuote(order),
  };
  // Paid from here on: record it before issuing, so a crash cannot lose the purchase.
  await _writeSealed(deps, "x402-settled", payment, settlement);
  return _issueFromSettlement(deps, payment, settlement, now);
}

/**
 * Before the order is priced: the saved 201 of a payment header that already bought keys, or the
 * issuance of one that was settled but whose request died before answering (taken over once its
 * claim lease has run out), else null. Both come before pricing because once keys exist the
 * account's next price differs, yet the same payment must still get the same answer.
 */
export async function resumeX402(deps: AppDeps, headers: Headers, now: number): Promise<SavedResponse | null> {
  const payment = deps.payments.x402 ? _presentedPayment(headers) : null;
  if (!payment) return null;
  const earlier = await _findEarlier(deps, payment);
  if (earlier.kind === "answer") return earlier.answer;
  if (earlier.kind === "unconfirmed") throw _unconfirmedError(earlier.reason);
  if (earlier.kind !== "settled") return null;
  const claim = await deps.backend.insertOnce(`x402:${_paymentId(payment)}`, "claimed", now + _leaseMs(deps), now);
  // Still claimed: its request may be issuing right now.
  if (!claim.created) throw apiError("payment_in_progress", { headers: { "retry-after": "2" } });
  deps.logger.warn("x402 finishing a settled payment left without keys", { payment_id: _paymentId(payment), transaction: earlier.settlement.receipt.transaction });
  return _issueFromSettlement(deps, payment, earlier.settlement, now);
}

// --- Internal helpers ---

type Earlier =
  | { kind: "none" }
  /** A result or settlement of the same (network, payer, nonce) that this header's signature does not open. */
  | { kind: "not_ours" }
  | { kind: "answer"; answer: SavedResponse }
  | { kind: "settled"; settlement: X402Settlement }
  | { kind: "unconfirmed"; reason: string };

/** How far earlier requests with this payment got, as far as this header may know. */
async function _findEarlier(deps: AppDeps, payment: DecodedPayment): Promise<Earlier> {
  const answer = await _readSealed<SavedResponse>(deps, "x402-result", payment);
  if (answer) return { kind: "answer", answer };
  const settlement = answer === undefined ? undefined : await _readSealed<X402Settlement>(deps, "x402-settled", payment);
  if (settlement) return { kind: "settled", settlement };
  if (settlement === undefined) return { kind: "not_ours" };
  const marker = await _readSealed<SettlingMarker>(deps, "x402-settling", payment);
  return marker?.unconfirmed ? { kind: "unconfirmed", reason: marker.unconfirmed } : { kind: "none" };
}

/** Issues the keys a recorded settlement paid for, once, and saves the sealed 201. */
async function _issueFromSettlement(deps: AppDeps, payment: DecodedPayment, settlement: X402Settlement, now: number): Promise<SavedResponse> {
  const id = _paymentId(payment);
  const guard = await deps.backend.insertOnce(`x402-issue:${id}`, "issuing", now + _leaseMs(deps), now);
  if (!guard.created) throw apiError("payment_in_progress", { headers: { "retry-after": "2" } });
  let issued;
  try {
    issued = await issuePurchasedKeys(deps, settlement.order, now);
  } catch (error) {
    // Settled but not issued (the account reached its cap in a race): needs a refund by hand.
    deps.logger.error("x402 settled but keys not issued", { transaction: settlement.receipt.transaction, payer: settlement.receipt.payer, reason: (error as Error).message });
    await deps.backend.removeOnce(`x402-issue:${id}`);
    throw error;
  }
  const response: SavedResponse = {
    status: 201,
    headers: { [settlement.responseHeader]: encodeHeader(settlement.receipt) },
    body: { keys: await describeIssuedKeys(deps, issued, now), receipt: { payment_method: "http402", quote: settlement.quote, transaction: settlement.receipt.transaction || null } },
  };
  await _writeSealed(deps, "x402-result", payment, response);
  deps.logger.info("keys issued", { source: "checkout", method: "http402", key_ids: issued.map((i) => i.record.id), transaction: settlement.receipt.transaction });
  return response;
}

/**
 * A retaken payment the facilitator now refuses: the crashed attempt may have settled it, or not.
 * Logged for reconciliation by hand and remembered, so retries get the same answer at once.
 */
async function _unconfirmed(deps: AppDeps, payment: DecodedPayment, reason: string, now: number) {
  const id = _paymentId(payment);
  deps.logger.error("x402 payment unconfirmed after an interrupted settle; reconcile by hand", { payment_id: id, network: payment.network, payer: payment.authorization.from, nonce: payment.authorization.nonce, reason });
  await _writeSealed<SettlingMarker>(deps, "x402-settling", payment, { at: now, unconfirmed: reason });
  await deps.backend.removeOnce(`x402:${id}`);
  return _unconfirmedError(reason);
}

function _unconfirmedError(reason: string) {
  return apiError("payment_unconfirmed", { detail: `An earlier attempt with this payment was interrupted while settling and the facilitator now refuses it (${reason}); it may have been paid. It is logged for reconciliation.` });
}

type SealedKind = "x402-result" | "x402-settled" | "x402-settling";

/** The record sealed for this payment: its value, null when absent, undefined when another header's. */
async function _readSealed<T>(deps: AppDeps, kind: SealedKind, payment: DecodedPayment): Promise<T | null | undefined> {
  const slot = `${kind}:${_paymentId(payment)}`;
  const record = await deps.backend.records.getItem(slot);
  if (record === null || record === undefined) return null;
  return openAnswer<T>(record, _paymentSecret(payment), slot) ?? undefined;
}

async function _writeSealed<T>(deps: AppDeps, kind: SealedKind, payment: DecodedPayment, value: T): Promise<void> {
  const slot = `${kind}:${_paymentId(payment)}`;
  await deps.backend.records.setItem(slot, sealAnswer(value, _paymentSecret(payment), slot));
}

/** The payment of a PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) header, v2 first; null without either. */
function _presentedPayment(headers: Headers): DecodedPayment | null {
  const v2Header = headers.get("payment-signature");
  const v1Header = headers.get("x-payment");
  if (!v2Header && !v1Header) return null;
  return decodePaymentHeader((v2Header ?? v1Header)!, v2Header ? 2 : 1);
}

function _paymentId(payment: DecodedPayment): string {
  return digestOf("x402", payment.network, payment.authorization.from.toLowerCase(), payment.authorization.nonce.toLowerCase());
}

/**
 * What only the payer (and whoever it sends the header to) holds: the signature over the
 * authorization. The lookup id above is built from public fields only, so it reveals nothing of it.
 */
function _paymentSecret(payment: DecodedPayment): string {
  const payload = payment.payload.payload as { signature: string };
  return `${payment.version}\u0000${payload.signature}`;
}

function _leaseMs(deps: AppDeps): number {
  return Math.max(MIN_LEASE_MS, 3 * deps.config.payments.timeoutMs);
}

function _paymentRequired(requirements: Requirements, order: CheckoutOrder, reason: string, headers: Record<string, string> = {}) {
  return apiError("checkout_payment_required", {
    detail: `Pay ${formatUsd(order.quote.totalMicros)} with x402 (${reason}).`,
    headers: { "payment-required": encodeHeader({ ...requirements.paymentRequired, error: reason }), ...headers },
    extra: { x402Version: 1, error: reason, accepts: [requirements.v1], quote: describeQuote(order) },
  });
}
