/**
 * Checkout with `payment_method: "http402"` (x402). Without a payment header: 402 with our
 * requirements (v1 in the body, v2 in PAYMENT-REQUIRED) for the price this account would pay now.
 * With one, the signed payment itself is the purchase's claim (network, payer, nonce; the
 * signature is the fingerprint, so another header with the same nonce is refused as "nonce used"),
 * and the purchase runs reserve → verify → settle → issue (`../run-checkout.ts`):
 * - reserve: the account's slots fix the price; a payment for another amount is refused (402 with
 *   fresh requirements) and the reservation released;
 * - verify with the facilitator (consumes nothing), then settle: the one irreversible call, at most
 *   once per purchase; a settle whose outcome is lost is resolved in the buyer's favour (keys
 *   issued, flagged for the operator);
 * - the 201 is rebuilt from the record, the keys opened with the payment's signature, so the same
 *   payment sent again gets the same keys, across crashes too, while the store holds no key in clear.
 */
import type { Network } from "@x402/core/types";
import type { AppDeps } from "../../../deps.ts";
import { apiError } from "../../../errors.ts";
import { formatUsd } from "../../../money.ts";
import type { PurchaseAccount } from "../../../accounts/purchase-account.ts";
import { describeQuote, digestOf, quoteOrder, type CheckoutOrder } from "../../purchases/checkout-order.ts";
import { claimPurchase, type SavedResponse } from "../../purchases/idempotency.ts";
import { describePurchasedKeys, openKeys } from "../../purchases/purchase-keys.ts";
import { runCheckout } from "../run-checkout.ts";
import type { PurchaseRecord } from "../../purchases/purchase-store.ts";
import {
  decodePaymentHeader,
  encodeRequiredHeader,
  encodeResponseHeader,
  mismatchReason,
  type DecodedPayment,
  type Requirements,
} from "./x402-requirements.ts";

type Quote = Awaited<ReturnType<typeof describeQuote>>;

/**
 * How facilitators report an authorization whose nonce was already used on chain: the v2 exact
 * scheme's reason code, or (the v1 scheme passes the revert through) USDC's own revert message.
 */
const NONCE_USED_RE = /nonce_used|nonce_already_used|authorization_used|authorization is used/i;

export async function checkoutWithX402(
  deps: AppDeps,
  order: CheckoutOrder,
  account: PurchaseAccount,
  request: { headers: Headers; resourceUrl: string },
  now: number,
): Promise<SavedResponse> {
  const x402 = deps.payments.x402;
  if (!x402) throw apiError("payment_provider_unavailable", { detail: "HTTP 402 (x402) payments are not configured on this deployment." });
  const requirementsFor = (amountMicros: number) =>
    x402.requirements(amountMicros, {
      url: request.resourceUrl,
      description: `${order.quantity} ${order.vertical} membership key${order.quantity === 1 ? "" : "s"}, first month (${formatUsd(amountMicros)})`,
    });
  const preview = async (options: { proofNeeded: boolean }) => {
    // Refusing a used payment must not hinge on proving the account: price it as a new one then.
    const quote = await quoteOrder(deps, order, options.proofNeeded ? account : null);
    return {
      requirements: await requirementsFor(quote.totalMicros),
      quote: await describeQuote(deps, quote, account.create ? null : account.account),
    };
  };
  const payment = _presentedPayment(request.headers);
  if (!payment) {
    const { requirements, quote } = await preview({ proofNeeded: true });
    // Each version's answer names its own header (the v1 body, the v2 PAYMENT-REQUIRED header).
    throw _paymentRequired(requirements, quote, "X-PAYMENT header is required", {}, "PAYMENT-SIGNATURE header is required");
  }
  const secret = _paymentSecret(payment);
  const claim = await claimPurchase(deps, "x402", _paymentId(payment), digestOf("x402-signature", secret), now);
  if (!claim) {
    const { requirements, quote } = await preview({ proofNeeded: false });
    throw _paymentRequired(requirements, quote, "invalid_exact_evm_payload_authorization_nonce_used");
  }
  const responseHeader = payment.version === 2 ? "payment-response" : "x-payment-response";
  // Our requirements for the price the reservation fixed, built once per request.
  let ours: { amount: number; requirements: Requirements } | null = null;
  const requirementsOf = async (record: PurchaseRecord) => {
    if (ours?.amount !== record.amount_usd_micros)
      ours = { amount: record.amount_usd_micros, requirements: await requirementsFor(record.amount_usd_micros) };
    return ours.requirements;
  };
  return runCheckout(
    deps,
    order,
    account,
    {
      method: "http402",
      id: claim.purchaseId,
      claim,
      inProgress: "payment_in_progress",
      secret,
      payer: { network: payment.network, payer: payment.authorization.from.toLowerCase() },
      async authorize(record) {
        const requirements = await requirementsOf(record);
        // Checked against OUR requirements for the price just reserved, never the client's copy.
        let reason = mismatchReason(payment, requirements, x402.acceptedMatches(payment, requirements));
        if (reason === null) {
          // Verify consumes nothing: a failure here leaves the purchase reserved for a retry.
          const verified = await x402.verify(payment, requirements);
          if (verified.isValid) return null;
          reason = verified.invalidReason ?? "invalid_payment";
        }
        return {
          note: `payment refused: ${reason}`,
          error: async (released) =>
            _paymentRequired(await requirementsOf(released), await describeQuote(deps, released, released.account), reason),
        };
      },
      // An interrupted settle is safe to ask again: the authorization's nonce settles once, and the
      // answer tells whether the earlier attempt went through.
      chargeOptions: { repeatable: true },
      async charge(record, resumed) {
        const requirements = await requirementsOf(record);
        const settled = await x402.settle(payment, requirements);
        if (!settled.success) {
          const reason = settled.errorReason ?? "settlement_failed";
          if (resumed && NONCE_USED_RE.test(reason))
            return {
              reference: null,
              chargedMicros: record.amount_usd_micros,
              note: "settled by an interrupted attempt (nonce used); transaction not reported",
            };
          const failure = {
            success: false,
            errorReason: reason,
            transaction: settled.transaction,
            network: (settled.network || payment.network) as Network,
            payer: settled.payer ?? undefined,
          };
          throw _paymentRequired(requirements, await describeQuote(deps, record, record.account), failure.errorReason, {
            [responseHeader]: encodeResponseHeader(failure),
          });
        }
        return { reference: settled.transaction, chargedMicros: record.amount_usd_micros };
      },
      answer: (record, fresh) => _answer(deps, record, payment, secret, responseHeader, now, fresh),
      earlierRefused: () =>
        apiError("payment_failed", { detail: "An earlier attempt with this payment was refused and nothing was settled; send it again." }),
      refundDue: (record) =>
        apiError("payment_unconfirmed", { detail: `Purchase ${record.id} was interrupted and is recorded for a refund by the operator.` }),
    },
    now,
  );
}

// --- Internal helpers ---

async function _answer(
  deps: AppDeps,
  record: PurchaseRecord,
  payment: DecodedPayment,
  secret: string,
  responseHeader: string,
  now: number,
  fresh: string[] | null = null,
): Promise<SavedResponse> {
  const keys = fresh ?? openKeys(record, secret);
  if (!keys) throw apiError("internal_error", { detail: "The keys of this purchase cannot be opened with this payment." });
  const receipt = {
    success: true,
    transaction: record.payment.reference ?? "",
    network: payment.network as Network,
    payer: payment.authorization.from,
  };
  return {
    status: 201,
    headers: { [responseHeader]: encodeResponseHeader(receipt) },
    body: {
      keys: await describePurchasedKeys(deps, keys, now),
      receipt: {
        payment_method: "http402",
        purchase_id: record.id,
        account: record.account,
        quote: await describeQuote(deps, record, record.account),
        transaction: record.payment.reference || null,
        ...(record.payment.unconfirmed ? { charge_unconfirmed: true } : {}),
      },
    },
  };
}

/** The payment of a PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) header, v2 first; null without either. */
function _presentedPayment(headers: Headers): DecodedPayment | null {
  const v2Header = headers.get("payment-signature");
  const v1Header = headers.get("x-payment");
  if (!v2Header && !v1Header) return null;
  return decodePaymentHeader((v2Header ?? v1Header)!, v2Header ? 2 : 1);
}

/** Public fields only: the id reveals nothing of the signature. */
function _paymentId(payment: DecodedPayment): string {
  return `${payment.network}\u0000${payment.authorization.from.toLowerCase()}\u0000${payment.authorization.nonce.toLowerCase()}`;
}

/**
 * What only the payer (and whoever it sends the header to) holds: the signature over the
 * authorization. The purchase's keys are sealed under it.
 */
function _paymentSecret(payment: DecodedPayment): string {
  const payload = payment.payload.payload as { signature: string };
  return `${payment.version}\u0000${payload.signature}`;
}

function _paymentRequired(
  requirements: Requirements,
  quote: Quote,
  reason: string,
  headers: Record<string, string> = {},
  v2Reason = reason,
) {
  return apiError("checkout_payment_required", {
    detail: `Pay ${quote.amount} with x402 (${v2Reason === reason ? reason : `${v2Reason}; ${reason} in x402 v1`}).`,
    headers: { "payment-required": encodeRequiredHeader(requirements, v2Reason), ...headers },
    extra: { x402Version: 1, error: reason, accepts: [requirements.v1], quote },
  });
}
