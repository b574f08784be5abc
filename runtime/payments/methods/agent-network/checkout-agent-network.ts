/**
 * Checkout with `payment_method: "agent_network"`: a KYAPay pay or kya-pay token in
 * `pay-network-pay-id`. Without a token the answer is a quote (200). With one: the token is
 * verified locally, then the purchase runs reserve → charge → issue (`purchase-flow.ts`): the
 * account's slots and price tier first (a refusal charges nothing), the token's ledger next (never
 * spent past its value, shared with per-use retrieval), then ONE charge call, then the keys.
 *
 * With an Idempotency-Key the purchase can be resumed from any point: a retry with the same key and
 * request finishes it (keys issued once, never a second charge) or replays the 201. Without one,
 * an interrupted purchase is resolved by reconciliation (refund due, since no client can come back
 * for its keys).
 */
import type { AppDeps } from "../../../deps.ts";
import { apiError } from "../../../errors.ts";
import { formatUsd } from "../../../money.ts";
import type { PurchaseAccount } from "../../../accounts/purchase-account.ts";
import { describeQuote, quoteOrder, type CheckoutOrder } from "../../purchases/checkout-order.ts";
import { claimPurchase, idempotencyKeyReused, type SavedResponse } from "../../purchases/idempotency.ts";
import { howToPay, type VerifiedPayToken } from "../../providers/agent-network.ts";
import { chargePurchase, completePurchase, newPurchaseId, releasePurchase, reservePurchase } from "../../purchases/purchase-flow.ts";
import { describePurchasedKeys, openKeys } from "../../purchases/purchase-keys.ts";
import { finishClaimed } from "../../purchases/purchase-lease.ts";
import { createPurchaseStore, type PurchaseRecord } from "../../purchases/purchase-store.ts";
import { describeCheckoutMethods } from "../../purchases/checkout-info.ts";
import { reserveFromLedger } from "../../per-use/token-ledger.ts";

export interface AgentNetworkCheckout {
  payToken: string | null;
  idempotencyKey: string | null;
  /** Digest of the request body and credentials: what makes a retry "the same request". */
  fingerprint: string;
}

export async function checkoutWithAgentNetwork(
  deps: AppDeps,
  order: CheckoutOrder,
  account: PurchaseAccount,
  input: AgentNetworkCheckout,
  now: number,
): Promise<SavedResponse> {
  const network = deps.payments.agentNetwork;
  if (!network) throw apiError("payment_provider_unavailable", { detail: "Agent-network tokens are not configured on this deployment." });
  if (!input.payToken) return _quote(deps, order, account);
  const token = await network.verify(input.payToken, now);
  if (token.type === "kya") throw apiError("payment_token_required", { extra: { unlock: howToPay() } });

  const claim = input.idempotencyKey ? await claimPurchase(deps, "idem", input.idempotencyKey, input.fingerprint, now) : null;
  if (input.idempotencyKey && !claim) throw idempotencyKeyReused();
  const id = claim?.purchaseId ?? newPurchaseId();
  const secret = `${input.idempotencyKey ?? ""}\u0000${input.payToken}`;
  const payToken = input.payToken;
  return finishClaimed(deps, { id, claim, inProgress: "idempotency_in_progress" }, now, async () => {
    let record = await createPurchaseStore(deps.backend).get(id);
    if (record?.state === "issued") return _answer(deps, record, secret, now, true);
    if (record?.state === "released") throw _earlierRefused();
    if (record?.state === "refund_due") throw _refundDue(record);
    let keys: string[] | null = null;
    if (!record) {
      ({ record, keys } = await reservePurchase(
        deps,
        {
          id,
          method: "agent_network",
          vertical: order.vertical,
          quantity: order.quantity,
          cohort: order.cohort,
          account: account.account,
          createAccount: account.create,
          agentId: order.agentId ?? null,
          contact: order.contact ?? null,
          secret,
          resumable: claim !== null,
          payer: { jti: token.jti, sub: token.sub },
        },
        now,
      ));
    }
    record = await _pay(deps, record, token, payToken, now);
    record = await completePurchase(deps, record, now);
    return _answer(deps, record, secret, now, keys === null, keys);
  });
}

// --- Internal helpers ---

/** Ledger, then the one charge call; resumes a purchase left in any state before `issued`. */
async function _pay(
  deps: AppDeps,
  record: PurchaseRecord,
  token: VerifiedPayToken,
  payToken: string,
  now: number,
): Promise<PurchaseRecord> {
  if (record.state === "charged") return record;
  if (record.state === "reserved") {
    try {
      await reserveFromLedger(deps, token, record.amount_usd_micros, token.valueMicros, now);
    } catch (error) {
      await releasePurchase(deps, record, "the token's ledger refused the amount", now);
      throw error;
    }
  }
  // `reserved` or `charging`: chargePurchase calls the network at most once per purchase.
  return chargePurchase(
    deps,
    record,
    async () => {
      const charge = await deps.payments.agentNetwork!.charge(payToken, record.amount_usd_micros);
      return { reference: token.jti, chargedMicros: charge.chargedMicros };
    },
    now,
  );
}

async function _answer(
  deps: AppDeps,
  record: PurchaseRecord,
  secret: string,
  now: number,
  replayed: boolean,
  fresh: string[] | null = null,
): Promise<SavedResponse> {
  const keys = fresh ?? openKeys(record, secret);
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

async function _quote(deps: AppDeps, order: CheckoutOrder, account: PurchaseAccount): Promise<SavedResponse> {
  const quote = await quoteOrder(deps, order, account);
  return {
    status: 200,
    headers: {},
    body: {
      object: "checkout_quote",
      vertical: order.vertical,
      account: account.create ? null : account.account,
      quote: await describeQuote(deps, quote, account.create ? null : account.account),
      payment_options: describeCheckoutMethods(deps),
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
