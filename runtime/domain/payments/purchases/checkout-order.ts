/**
 * What a checkout request is asking for, checked once before anything is reserved or paid: the
 * canonical vertical, the quantity, who is named. The cohort whose prices apply (a member's own,
 * else the one open to new members) and the price itself are fixed when the purchase reserves its
 * account slots and seat (`purchase-flow.ts`); `quoteOrder` only previews them.
 */
import { createHash } from "node:crypto";
import { apiError } from "../../../shared/errors.ts";
import { formatUsd } from "../../../shared/money.ts";
import { limitsInForce } from "../../../state/releases/build-ref.ts";
import { createCreditsStore } from "../../../state/storage/credits-store.ts";
import { unknownVertical } from "../../access/unknown-names.ts";
import { readIdentifier } from "../../accounts/identifier.ts";
import type { PurchaseAccount } from "../../accounts/purchase-account.ts";
import { readActiveCohort } from "../../cohorts/active-cohort.ts";
import { cohortForNewMember, cohortOfKeys } from "../../cohorts/cohort-seats.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { PAYMENT_METHOD_TRAITS } from "../methods/method-ids.ts";
import type { CheckoutRequest } from "../payment-schemas.ts";
import { type PriceQuote, quoteKeys } from "./pricing.ts";
import { accountProofRequired } from "./purchase-flow.ts";
import type { PurchaseRecord } from "./purchase-store.ts";

export interface CheckoutOrder {
  vertical: string;
  quantity: number;
  agentId: string | undefined;
  contact: string | undefined;
}

export async function resolveCheckoutOrder(deps: DomainDeps, request: CheckoutRequest): Promise<CheckoutOrder> {
  if (PAYMENT_METHOD_TRAITS[request.payment_method].contactRequired && !request.contact) {
    throw apiError("validation_failed", {
      detail: `/contact: required for ${request.payment_method} (keys are delivered there)`,
      errors: [{ pointer: "/contact", message: `required when payment_method is ${request.payment_method}` }],
    });
  }
  const build = deps.build.current;
  const vertical = build.resolveVertical(request.vertical);
  if (!vertical) throw unknownVertical(build, request.vertical, { errors: [{ pointer: "/vertical", message: "unknown vertical" }] });
  if (vertical.fully_open || !(vertical.paid || vertical.included_with_membership)) {
    throw apiError("vertical_not_allowed", {
      detail: `${vertical.slug} is free to use; memberships are sold for paid verticals and ai-compliance.`,
      errors: [{ pointer: "/vertical", message: "not sold" }],
    });
  }
  // agent_id is kept folded (it names the account, the referral, the keys' agent); contact only
  // checked, since it is also the address the keys are mailed to.
  const agentId = request.agent_id === undefined ? undefined : readIdentifier(request.agent_id, "/agent_id");
  if (request.contact !== undefined) readIdentifier(request.contact, "/contact");
  return {
    vertical: vertical.slug,
    quantity: request.quantity ?? 1,
    agentId,
    contact: request.contact,
  };
}

/**
 * A preview of what the account would pay now (not reserved: a concurrent purchase may take the
 * next slot, or the last seat, first, and the price is then fixed at reservation): a member in its
 * own cohort, a new account in the cohort open to new members. An account at its cap is 409
 * `conflict`; a new account while that cohort is full and the next closed, 409 `cohort_full`.
 */
export async function quoteOrder(deps: DomainDeps, order: CheckoutOrder, account: PurchaseAccount | null): Promise<PriceQuote> {
  const cohorts = deps.build.current.catalog.cohorts;
  const maxKeys = limitsInForce(deps).keys_per_account;
  const now = deps.clock.now();
  // null: priced as a new account (where the account is not the point, e.g. refusing a used payment).
  if (account === null) return quoteKeys(cohorts, await readActiveCohort(deps.backend), 0, order.quantity, maxKeys);
  const keys = (await deps.keys.listByAccount(account.account)).filter((k) => k.type === "membership");
  // What an account holds (and so pays) is its owner's business: no quote for it without proof.
  if (account.create && keys.length > 0) throw accountProofRequired(account.account);
  const cohort = cohortOfKeys(keys) ?? (await cohortForNewMember(deps, now));
  return quoteKeys(cohorts, cohort, keys.length, order.quantity, maxKeys);
}

/** The quote as the API shows it, from a preview or from a reserved purchase. */
export async function describeQuote(deps: DomainDeps, source: PriceQuote | PurchaseRecord, account: string | null) {
  const creditBalanceMicros = account ? await createCreditsStore(deps.backend).balance(account) : 0;
  const quote = "totalMicros" in source ? source : _quoteOfRecord(source);
  return {
    cohort: quote.cohort,
    keys_held: quote.keysHeld,
    quantity: quote.quantity,
    per_key_usd_micros: quote.perKeyMicros,
    amount_usd_micros: quote.totalMicros,
    amount: formatUsd(quote.totalMicros),
    credit_balance_usd_micros: creditBalanceMicros,
  };
}

/** SHA-256 in hex, for store keys derived from caller-supplied strings (never stored raw). */
export function digestOf(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("hex");
}

// --- Internal helpers ---

function _quoteOfRecord(record: PurchaseRecord): PriceQuote {
  // Keys held before this purchase: its first slot's number minus one (slots are taken lowest first).
  const keysHeld = record.positions.length > 0 ? Math.min(...record.positions) - 1 : 0;
  return {
    cohort: record.cohort,
    keysHeld,
    quantity: record.quantity,
    perKeyMicros: record.per_key_usd_micros,
    totalMicros: record.amount_usd_micros,
  };
}
