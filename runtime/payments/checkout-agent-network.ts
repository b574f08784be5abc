/**
 * Checkout with `payment_method: "agent_network"`: the KYAPay pay or kya-pay token in
 * `pay-network-pay-id` is verified locally, its value is reserved in the per-token ledger (shared
 * with per-use retrieval, so one token is never spent twice), and the network charges it BEFORE
 * any key is issued: a key cannot be taken back. Any failure is 402 and issues nothing.
 */
import type { AppDeps } from "../deps.ts";
import { apiError } from "../errors.ts";
import { formatUsd } from "../money.ts";
import { describeQuote, type CheckoutOrder } from "./checkout-order.ts";
import type { SavedResponse } from "./idempotency.ts";
import { describeIssuedKeys, issuePurchasedKeys } from "./issue-purchased-keys.ts";
import { howToPay } from "./providers/agent-network.ts";
import { reserveFromLedger } from "./token-ledger.ts";

export async function checkoutWithAgentNetwork(deps: AppDeps, order: CheckoutOrder, payToken: string | null, now: number): Promise<SavedResponse> {
  const network = deps.payments.agentNetwork;
  if (!network) throw apiError("payment_provider_unavailable", { detail: "Agent-network tokens are not configured on this deployment." });
  if (!payToken) {
    throw apiError("checkout_payment_required", {
      detail: `Send a pay or kya-pay token worth at least ${formatUsd(order.quote.totalMicros)} in pay-network-pay-id.`,
      extra: { quote: describeQuote(order), unlock: howToPay() },
    });
  }
  const token = await network.verify(payToken, now);
  if (token.type === "kya") throw apiError("payment_token_required", { extra: { unlock: howToPay() } });
  await reserveFromLedger(deps, token, order.quote.totalMicros, token.valueMicros, now);
  const charge = await network.charge(payToken, order.quote.totalMicros);
  let issued;
  try {
    issued = await issuePurchasedKeys(deps, { vertical: order.vertical, quantity: order.quantity, cohort: order.quote.cohort, agentId: order.agentId, contact: order.contact }, now);
  } catch (error) {
    // Charged but not issued (the account reached its cap in a race, or the store failed): the
    // operator must refund or issue by hand, so it is logged with what identifies the payment.
    deps.logger.error("agent-network token charged but keys not issued", { jti: token.jti, sub: token.sub, charged_usd_micros: charge.chargedMicros, reason: (error as Error).message });
    throw error;
  }
  deps.logger.info("keys issued", { source: "checkout", method: "agent_network", key_ids: issued.map((i) => i.record.id), jti: token.jti, sub: token.sub, charged_usd_micros: charge.chargedMicros });
  return {
    status: 201,
    headers: {},
    body: { keys: await describeIssuedKeys(deps, issued, now), receipt: { payment_method: "agent_network", quote: describeQuote(order), transaction: token.jti } },
  };
}
