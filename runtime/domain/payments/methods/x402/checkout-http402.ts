/**
 * Checkout with `payment_method: "http402"` (x402). Without a payment header: 402 with our
 * requirements (v1 in the body, v2 in PAYMENT-REQUIRED) for the price this account would pay now.
 * With one, the signed payment itself is the purchase's claim: the EIP-3009 authorization it
 * carries (chain, token, payer, nonce), however it is wrapped (v1 `X-PAYMENT` or v2
 * `PAYMENT-SIGNATURE`), so one authorization is one purchase. The fingerprint is the signature and
 * the account the keys are for: another signature over the same nonce is refused as "nonce used",
 * the same payment sent for another account 409 `payment_owned_by_another_account`. The purchase
 * runs reserve → verify → settle → issue (`../run-checkout.ts`):
 * - reserve: the account's slots fix the price (the signed payment and our requirements are
 *   recorded, to settle again); a payment for another amount is refused (402 with fresh
 *   requirements) and the reservation released;
 * - verify with the facilitator (consumes nothing), then settle: the one irreversible call. Keys
 *   only after a settle succeeded: a settle whose outcome is lost (timeout, 5xx, an answer the
 *   library cannot read) leaves the purchase `charging`, and the retry or reconciliation asks
 *   settle again (the nonce settles once on chain) until it succeeds or is refused (an expired
 *   authorization: released, no keys). "Nonce used" counts as paid only when this purchase's own
 *   earlier settle attempt may have used it (flagged for the operator);
 * - the 201 is rebuilt from the record, the keys opened with the payment's signature, so the same
 *   payment sent again gets the same keys, across crashes too, while the store holds no key in clear.
 */
import type { Network } from "@x402/core/types";
import { apiError } from "../../../../shared/errors.ts";
import { formatUsd } from "../../../../shared/money.ts";
import type { PurchaseAccount } from "../../../accounts/purchase-account.ts";
import type { DomainDeps } from "../../../domain-deps.ts";
import { resolveNetwork, type X402Provider } from "../../providers/http402.ts";
import { type CheckoutOrder, describeQuote, digestOf, quoteOrder } from "../../purchases/checkout-order.ts";
import { claimOrHolder, type SavedResponse } from "../../purchases/idempotency.ts";
import type { ChargeReceipt } from "../../purchases/purchase-flow.ts";
import { describePurchasedKeys, openKeys } from "../../purchases/purchase-keys.ts";
import type { PurchaseRecord } from "../../purchases/purchase-store.ts";
import type { ReconcileDeps } from "../../purchases/reconcile.ts";
import { runCheckout } from "../run-checkout.ts";
import {
  type DecodedPayment,
  decodePaymentHeader,
  encodeRequiredHeader,
  encodeResponseHeader,
  mismatchReason,
  type Requirements,
} from "./x402-requirements.ts";
import { type SettleFailure, settleOnce } from "./x402-settle-outcome.ts";

type Quote = Awaited<ReturnType<typeof describeQuote>>;

export async function checkoutWithX402(
  deps: DomainDeps,
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
  const payment = presentedX402Payment(request.headers);
  if (!payment) {
    const { requirements, quote } = await preview({ proofNeeded: true });
    // Each version's answer names its own header (the v1 body, the v2 PAYMENT-REQUIRED header).
    throw _paymentRequired(requirements, quote, "X-PAYMENT header is required", {}, "PAYMENT-SIGNATURE header is required");
  }
  const secret = x402PaymentSecret(payment);
  const signed = digestOf("x402-signature", secret);
  const { claim, heldBy } = await claimOrHolder(
    deps,
    "x402",
    await x402PaymentId(x402, payment),
    `${signed}.${digestOf("x402-owner", _owner(order, account))}`,
    now,
  );
  if (!claim) {
    if (heldBy.startsWith(`${signed}.`))
      throw apiError("payment_owned_by_another_account", {
        detail:
          "This payment already bought keys for another account; only that account gets them (the same agent_id, or a key of that account in X-Service-Key).",
      });
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
      chargeRequest: async (record) => ({ payment, requirements: await requirementsOf(record) }),
      async charge(record, attemptedBefore) {
        const requirements = await requirementsOf(record);
        return _chargeOnce(deps, record, payment, requirements, attemptedBefore, async (failure) =>
          _paymentRequired(requirements, await describeQuote(deps, record, record.account), failure.errorReason, {
            [responseHeader]: encodeResponseHeader(failure),
          }),
        );
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

/**
 * Settles the payment for this purchase (`settleOnce`). Paid: the receipt. Refused: throws
 * `refusal(failure)` (a code `chargePurchase` reads as "nothing charged"); no answer throws 502 and
 * the purchase stays `charging` for the next ask.
 */
async function _chargeOnce(
  deps: Pick<DomainDeps, "payments" | "logger">,
  record: PurchaseRecord,
  payment: DecodedPayment,
  requirements: Requirements,
  attemptedBefore: boolean,
  refusal: (failure: SettleFailure) => Promise<unknown>,
): Promise<ChargeReceipt> {
  const outcome = await settleOnce(deps.payments.x402!, payment, requirements, attemptedBefore);
  if (outcome.paid)
    return outcome.transaction === null
      ? {
          reference: null,
          chargedMicros: record.amount_usd_micros,
          note: "settled by an interrupted attempt (nonce used); transaction not reported",
        }
      : { reference: outcome.transaction, chargedMicros: record.amount_usd_micros };
  if (outcome.expiredAfterAttempt)
    deps.logger.error("x402 authorization expired after a settle attempt whose outcome was lost; released, check the chain", {
      purchase_id: record.id,
      amount_usd_micros: record.amount_usd_micros,
      ...record.payer,
      reason: outcome.failure.errorReason,
    });
  throw await refusal(outcome.failure);
}

/**
 * Reconciliation's ask for a `charging` x402 purchase: settle again with the payment and
 * requirements recorded at verify; null for a record without them (nothing to ask with).
 */
export function settleRecorded(deps: ReconcileDeps, record: PurchaseRecord): ((attemptedBefore: boolean) => Promise<ChargeReceipt>) | null {
  const recorded = record.charge_request as { payment?: DecodedPayment; requirements?: Requirements } | undefined;
  if (!deps.payments.x402 || !recorded?.payment || !recorded.requirements) return null;
  const { payment, requirements } = recorded;
  return (attemptedBefore) =>
    _chargeOnce(deps, record, payment, requirements, attemptedBefore, async (failure) =>
      apiError("payment_failed", { detail: `The x402 facilitator refused to settle: ${failure.errorReason}.` }),
    );
}

// --- Internal helpers ---

/** Who the keys are for: the account, or (no agent_id, contact or key) whoever holds the payment. */
function _owner(order: CheckoutOrder, account: PurchaseAccount): string {
  return account.proof || order.agentId !== undefined || order.contact !== undefined ? `account:${account.account}` : "anonymous";
}

async function _answer(
  deps: DomainDeps,
  record: PurchaseRecord,
  payment: DecodedPayment,
  secret: string,
  responseHeader: string,
  now: number,
  fresh: string[] | null = null,
): Promise<SavedResponse> {
  // Purchases recorded before the secret became version-independent were sealed under `version\0signature`.
  const keys = fresh ?? openKeys(record, secret) ?? openKeys(record, `${payment.version}\u0000${secret}`);
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

/**
 * The payment of a PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) header, v2 first; null without either.
 * Also reads a payment carried as one string, `<version>:<header>` (`x402PaymentToken`).
 */
export function presentedX402Payment(headers: Headers | string): DecodedPayment | null {
  const token = typeof headers === "string" ? headers : x402PaymentToken(headers);
  if (token === null) return null;
  return decodePaymentHeader(token.slice(2), token.startsWith("1:") ? 1 : 2);
}

/** A request's x402 payment header as one string, `2:<PAYMENT-SIGNATURE>` or `1:<X-PAYMENT>`; null without either. */
export function x402PaymentToken(headers: Headers): string | null {
  const v2Header = headers.get("payment-signature");
  if (v2Header) return `2:${v2Header}`;
  const v1Header = headers.get("x-payment");
  return v1Header ? `1:${v1Header}` : null;
}

/**
 * The EIP-3009 authorization itself, whichever x402 version wraps it: chain id, token, payer and
 * nonce (public fields only: the id reveals nothing of the signature). A v1 payment names no
 * token: it can only pay ours.
 */
export async function x402PaymentId(x402: X402Provider, payment: DecodedPayment): Promise<string> {
  await x402.ready().catch((error: unknown) => {
    throw apiError("payment_provider_unavailable", {
      detail: `x402 payments cannot be taken right now: ${error instanceof Error ? error.message : String(error)}.`,
    });
  });
  let chain = payment.network;
  try {
    chain = resolveNetwork(payment.network).v2;
  } catch {
    // Not a network x402 knows: the payment is refused later; its id only has to be its own.
  }
  const asset = typeof payment.accepted?.asset === "string" ? payment.accepted.asset : (x402.asset ?? "");
  const { from, nonce } = payment.authorization;
  return ["eip3009", chain, asset.toLowerCase(), from.toLowerCase(), nonce.toLowerCase()].join("\u0000");
}

/**
 * What only the payer (and whoever it sends the header to) holds: the signature over the
 * authorization, the same in v1 and v2. The purchase's keys are sealed under it.
 */
export function x402PaymentSecret(payment: DecodedPayment): string {
  const payload = payment.payload.payload as { signature: string };
  return payload.signature;
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
