/**
 * Checkout with `payment_method: "agent_network"`: a KYAPay pay or kya-pay token in
 * `pay-network-pay-id`. Without a token the answer is a quote (200). With one: the token is
 * verified locally, then the purchase runs reserve → authorize → charge → issue
 * (`../run-checkout.ts`): the account's slots and price tier first (a refusal charges nothing), the
 * token's ledger next as the authorization (never spent past its value, shared with per-use
 * retrieval; a refusal releases the purchase), then ONE charge call, then the keys. A purchase
 * released with nothing charged (the network refused the charge, or it never got that far) gives
 * its hold back to the token's ledger.
 *
 * With an Idempotency-Key the purchase can be resumed from any point: a retry with the same key and
 * request finishes it (keys issued once, never a second charge) or replays the 201. A charge whose
 * outcome was lost is never asked again (the charge call has no idempotency key) nor assumed paid:
 * the purchase waits `unconfirmed` for the operator, and the retry is 409 until then. Without one,
 * an interrupted purchase is resolved by reconciliation (refund due, since no client can come back
 * for its keys).
 */
import { apiError, isApiError } from "../../../../shared/errors.ts";
import { formatUsd } from "../../../../shared/money.ts";
import type { PurchaseAccount } from "../../../accounts/purchase-account.ts";
import type { DomainDeps } from "../../../domain-deps.ts";
import { holdForPurchase, ledgerHoldOf } from "../../per-use/token-ledger.ts";
import { howToPay } from "../../providers/agent-network.ts";
import { type CheckoutOrder, describeQuote, quoteOrder } from "../../purchases/checkout-order.ts";
import type { SavedResponse } from "../../purchases/idempotency.ts";
import { describePurchasedKeys, openKeys } from "../../purchases/purchase-keys.ts";
import type { PurchaseRecord } from "../../purchases/purchase-store.ts";
import type { MethodDescription } from "../payment-method.ts";
import { claimByIdempotencyKey, runCheckout } from "../run-checkout.ts";

export interface AgentNetworkCheckout {
  payToken: string | null;
  idempotencyKey: string | null;
  /** Digest of the request body and credentials: what makes a retry "the same request". */
  fingerprint: string;
  /** Every method's description, for the quote's `payment_options`. */
  paymentOptions: () => MethodDescription[];
}

/** The token a checkout pays with; `skyfire-pay-id` is the network's own name for the header, an alias easy to drop. */
export function readPayToken(headers: Headers): string | null {
  return headers.get("pay-network-pay-id") ?? headers.get("skyfire-pay-id");
}

export async function checkoutWithAgentNetwork(
  deps: DomainDeps,
  order: CheckoutOrder,
  account: PurchaseAccount,
  input: AgentNetworkCheckout,
  now: number,
): Promise<SavedResponse> {
  const network = deps.payments.agentNetwork;
  if (!network) throw apiError("payment_provider_unavailable", { detail: "Agent-network tokens are not configured on this deployment." });
  if (!input.payToken) return _quote(deps, order, account, input.paymentOptions);
  const token = await network.verify(input.payToken, now);
  if (token.type === "kya") throw apiError("payment_token_required", { extra: { unlock: howToPay() } });

  const { id, claim } = await claimByIdempotencyKey(deps, input, now);
  const secret = `${input.idempotencyKey ?? ""}\u0000${input.payToken}`;
  const payToken = input.payToken;
  return runCheckout(
    deps,
    order,
    account,
    {
      method: "agent_network",
      id,
      claim,
      inProgress: "idempotency_in_progress",
      secret,
      payer: { jti: token.jti, sub: token.sub },
      ledgerHold: ledgerHoldOf(token),
      // The token's ledger (shared with per-use retrieval) is never spent past the token's value;
      // the purchase holds its amount once however often a retry finds it still reserved.
      async authorize(record) {
        try {
          await holdForPurchase(deps, token, record, now);
          return null;
        } catch (error) {
          // Only the ledger's refusal ends the purchase. A store that failed to answer refused
          // nothing: thrown, it leaves the purchase reserved for the retry (released here, its
          // charge would be fenced off, and a release cut short by the same outage would answer
          // every retry 402 "released before it was charged").
          if (isApiError(error) && error.code === "payment_token_depleted")
            return { note: "the token's ledger refused the amount", error: () => error };
          throw error;
        }
      },
      async charge(record) {
        const charge = await network.charge(payToken, record.amount_usd_micros);
        return { reference: token.jti, chargedMicros: charge.chargedMicros };
      },
      answer: (record, fresh) => _answer(deps, record, secret, now, fresh),
      earlierRefused: _earlierRefused,
      refundDue: _refundDue,
    },
    now,
  );
}

// --- Internal helpers ---

async function _answer(
  deps: DomainDeps,
  record: PurchaseRecord,
  secret: string,
  now: number,
  fresh: string[] | null,
): Promise<SavedResponse> {
  const keys = fresh ?? openKeys(record, secret);
  // Keys not from this request's reservation: the purchase was found reserved or further.
  const replayed = fresh === null;
  if (!keys) throw apiError("internal_error", { detail: "The keys of this purchase cannot be opened with this request's credentials." });
  return {
    status: 201,
    headers: replayed ? { "idempotent-replayed": "true" } : {},
    body: {
      keys: await describePurchasedKeys(deps, keys, now),
      receipt: {
        payment_method: "agent_network",
        purchase_id: record.id,
        account: record.account,
        quote: await describeQuote(deps, record, record.account),
        transaction: record.payment.reference,
        ...(record.payment.unconfirmed ? { charge_unconfirmed: true } : {}),
      },
    },
  };
}

async function _quote(
  deps: DomainDeps,
  order: CheckoutOrder,
  account: PurchaseAccount,
  paymentOptions: () => MethodDescription[],
): Promise<SavedResponse> {
  const quote = await quoteOrder(deps, order, account);
  return {
    status: 200,
    headers: {},
    body: {
      object: "checkout_quote",
      vertical: order.vertical,
      account: account.create ? null : account.account,
      quote: await describeQuote(deps, quote, account.create ? null : account.account),
      payment_options: paymentOptions(),
      detail: `Send a pay or kya-pay token worth at least ${formatUsd(quote.totalMicros)} in pay-network-pay-id to buy; the price is fixed when the purchase is reserved.`,
    },
  };
}

/** A purchase of this key ended refused (its claim is freed on the way out): the client may retry. */
function _earlierRefused() {
  return apiError("payment_failed", {
    detail: "An earlier attempt with this Idempotency-Key was refused and nothing was charged; send the request again.",
    extra: { unlock: howToPay() },
  });
}

function _refundDue(record: PurchaseRecord) {
  return apiError("payment_unconfirmed", {
    detail: `Purchase ${record.id} was interrupted and is recorded for a refund by the operator; it will not be charged again.`,
  });
}
