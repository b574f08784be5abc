/**
 * What a checkout request is asking for, resolved once before any payment: the canonical
 * vertical, the account, the keys it already holds, the active cohort and the server-side price.
 * Everything that can refuse the purchase refuses it here, so no one pays for keys we cannot issue.
 */
import { createHash } from "node:crypto";
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { apiError } from "../errors.ts";
import { readActiveCohort } from "../cohorts/active-cohort.ts";
import { formatUsd } from "../money.ts";
import type { CheckoutRequest } from "../schema/payments.ts";
import { createCreditsStore } from "../storage/credits-store.ts";
import { quoteKeys, type PriceQuote } from "./pricing.ts";

export interface CheckoutOrder {
  vertical: string;
  quantity: number;
  /** agent_id, else contact: the account the 5-key cap and the graduated prices apply to; null = no account. */
  account: string | null;
  agentId: string | undefined;
  contact: string | undefined;
  quote: PriceQuote;
  /** Referral and loyalty credit owed to the account; applied at its next renewal, not to this purchase. */
  creditBalanceMicros: number;
}

export async function resolveCheckoutOrder(deps: AppDeps, request: CheckoutRequest): Promise<CheckoutOrder> {
  if (request.payment_method === "card" && !request.contact) {
    throw apiError("validation_failed", { detail: "/contact: required for card (keys are delivered there)", errors: [{ pointer: "/contact", message: "required when payment_method is card" }] });
  }
  const vertical = deps.build.current.resolveVertical(request.vertical);
  if (!vertical) throw apiError("vertical_unknown", { detail: `"${request.vertical.slice(0, 64)}" is not a vertical.`, errors: [{ pointer: "/vertical", message: "unknown vertical" }] });
  if (vertical.fully_open || !(vertical.paid || vertical.included_with_membership)) {
    throw apiError("vertical_not_allowed", { detail: `${vertical.slug} is free to use; memberships are sold for paid verticals and ai-compliance.`, errors: [{ pointer: "/vertical", message: "not sold" }] });
  }
  const limits = limitsInForce(deps);
  const quantity = request.quantity ?? 1;
  const account = request.agent_id ?? request.contact ?? null;
  // Membership keys only: trial keys of the same agent do not count towards the cap.
  const held = account ? (await deps.keys.listByAccount(account)).filter((k) => k.type === "membership").length : 0;
  const quote = quoteKeys(deps.build.current.catalog.cohorts, await readActiveCohort(deps.backend), held, quantity, limits.keys_per_account);
  const creditBalanceMicros = account ? await createCreditsStore(deps.backend).balance(account) : 0;
  return { vertical: vertical.slug, quantity, account, agentId: request.agent_id, contact: request.contact, quote, creditBalanceMicros };
}

/** The quote as the API shows it. */
export function describeQuote(order: CheckoutOrder) {
  const quote = order.quote;
  return {
    cohort: quote.cohort,
    keys_held: quote.keysHeld,
    quantity: quote.quantity,
    per_key_usd_micros: quote.perKeyMicros,
    amount_usd_micros: quote.totalMicros,
    amount: formatUsd(quote.totalMicros),
    credit_balance_usd_micros: order.creditBalanceMicros,
  };
}

/** SHA-256 in hex, for store keys derived from caller-supplied strings (never stored raw). */
export function digestOf(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("hex");
}
