/**
 * Checkout with `payment_method: "http402"` (x402). Without a payment header: 402 with our
 * requirements (v1 in the body, v2 in PAYMENT-REQUIRED). With one: decode, check it against OUR
 * requirements, claim its (network, payer, nonce) so it can be used once, verify and settle through
 * the facilitator with our requirements, and only then issue the keys. The 201 is saved against
 * the nonce, so the same payment sent again gets the same answer and never a second set of keys.
 */
import type { AppDeps } from "../deps.ts";
import { apiError } from "../errors.ts";
import { formatUsd } from "../money.ts";
import { describeQuote, digestOf, type CheckoutOrder } from "./checkout-order.ts";
import type { SavedResponse } from "./idempotency.ts";
import { describeIssuedKeys, issuePurchasedKeys } from "./issue-purchased-keys.ts";
import { buildRequirements, decodePaymentHeader, encodeHeader, mismatchReason, type DecodedPayment, type Requirements } from "./x402-requirements.ts";

export async function checkoutWithX402(deps: AppDeps, order: CheckoutOrder, request: { headers: Headers; resourceUrl: string }, now: number): Promise<SavedResponse> {
  const x402 = deps.payments.x402;
  if (!x402) throw apiError("payment_provider_unavailable", { detail: "HTTP 402 (x402) payments are not configured on this deployment." });
  const description = `${order.quantity} ${order.vertical} membership key${order.quantity === 1 ? "" : "s"}, first month (${formatUsd(order.quote.totalMicros)})`;
  const requirements = buildRequirements(x402, order.quote.totalMicros, { url: request.resourceUrl, description });
  const v2Header = request.headers.get("payment-signature");
  const v1Header = request.headers.get("x-payment");
  if (!v2Header && !v1Header) throw _paymentRequired(requirements, order, "X-PAYMENT header is required");

  const payment = decodePaymentHeader((v2Header ?? v1Header)!, v2Header ? 2 : 1);
  const responseHeader = payment.version === 2 ? "payment-response" : "x-payment-response";
  const mismatch = mismatchReason(payment, requirements, now);
  if (mismatch) throw _paymentRequired(requirements, order, mismatch);

  // One use per signed authorization: the nonce claim is taken before the facilitator is called.
  const id = _paymentId(payment);
  const claim = await deps.backend.insertOnce(`x402:${id}`, "claimed", null, now);
  if (!claim.created) {
    const saved = await deps.backend.records.getItem<SavedResponse>(`x402-result:${id}`);
    if (saved) return saved;
    throw apiError("payment_in_progress", { headers: { "retry-after": "2" } });
  }

  let settled;
  try {
    const facilitatorRequest = { x402Version: payment.version, paymentPayload: payment.payload, paymentRequirements: payment.version === 2 ? requirements.v2 : requirements.v1 };
    const verified = await x402.facilitator.verify(facilitatorRequest);
    if (!verified.isValid) throw _paymentRequired(requirements, order, verified.invalidReason ?? "invalid_payment");
    settled = await x402.facilitator.settle(facilitatorRequest);
    if (!settled.success) {
      const failure = { success: false, errorReason: settled.errorReason ?? "settlement_failed", transaction: settled.transaction, network: settled.network || payment.network, payer: settled.payer };
      throw _paymentRequired(requirements, order, failure.errorReason, { [responseHeader]: encodeHeader(failure) });
    }
  } catch (error) {
    // Not settled: the authorization was not used, so it may be presented again.
    await deps.backend.removeOnce(`x402:${id}`);
    throw error;
  }

  const receipt = { success: true, transaction: settled.transaction, network: settled.network || payment.network, payer: settled.payer ?? payment.authorization.from };
  let issued;
  try {
    issued = await issuePurchasedKeys(deps, { vertical: order.vertical, quantity: order.quantity, cohort: order.quote.cohort, agentId: order.agentId, contact: order.contact }, now);
  } catch (error) {
    // Settled but not issued (the account reached its cap in a race): needs a refund by hand.
    deps.logger.error("x402 settled but keys not issued", { transaction: settled.transaction, payer: receipt.payer, reason: (error as Error).message });
    throw error;
  }
  const response: SavedResponse = {
    status: 201,
    headers: { [responseHeader]: encodeHeader(receipt) },
    body: { keys: await describeIssuedKeys(deps, issued, now), receipt: { payment_method: "http402", quote: describeQuote(order), transaction: settled.transaction || null } },
  };
  await deps.backend.records.setItem(`x402-result:${id}`, response);
  deps.logger.info("keys issued", { source: "checkout", method: "http402", key_ids: issued.map((i) => i.record.id), transaction: settled.transaction });
  return response;
}

/**
 * The saved 201 of a payment header that already bought keys, or null. Checked before the order is
 * priced: once its keys exist the account's next price differs, yet the same payment must still
 * get the same answer.
 */
export async function findSettledX402(deps: AppDeps, headers: Headers): Promise<SavedResponse | null> {
  const v2Header = headers.get("payment-signature");
  const v1Header = headers.get("x-payment");
  if (!deps.payments.x402 || (!v2Header && !v1Header)) return null;
  const payment = decodePaymentHeader((v2Header ?? v1Header)!, v2Header ? 2 : 1);
  return deps.backend.records.getItem<SavedResponse>(`x402-result:${_paymentId(payment)}`);
}

// --- Internal helpers ---

function _paymentId(payment: DecodedPayment): string {
  return digestOf("x402", payment.network, payment.authorization.from.toLowerCase(), payment.authorization.nonce.toLowerCase());
}

function _paymentRequired(requirements: Requirements, order: CheckoutOrder, reason: string, headers: Record<string, string> = {}) {
  return apiError("checkout_payment_required", {
    detail: `Pay ${formatUsd(order.quote.totalMicros)} with x402 (${reason}).`,
    headers: { "payment-required": encodeHeader({ ...requirements.paymentRequired, error: reason }), ...headers },
    extra: { x402Version: 1, error: reason, accepts: [requirements.v1], quote: describeQuote(order) },
  });
}
