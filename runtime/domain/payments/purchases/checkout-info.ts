/**
 * GET /api/checkout: the payment methods (with whether this deployment has each configured),
 * per-cohort prices including the inaugural graduated prices, the 5-key account cap, loyalty
 * credits and subscription options. Computed from the catalogue and config; no state but the
 * active cohort.
 */
import { formatUsd } from "../../../shared/money.ts";
import { limitsInForce } from "../../../state/releases/build-ref.ts";
import { readActiveCohort } from "../../cohorts/active-cohort.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { PAYMENT_METHOD_REGISTRY } from "../methods/registry.ts";
import { formatUsdExact } from "./usd-decimal.ts";

export async function describeCheckout(deps: DomainDeps) {
  const catalog = deps.build.current.catalog;
  const limits = limitsInForce(deps);
  const maxKeys = limits.keys_per_account;
  return {
    object: "checkout_info" as const,
    active_cohort: await readActiveCohort(deps.backend),
    payment_methods: describeCheckoutMethods(deps),
    pricing: {
      currency: "USD" as const,
      interval: "month" as const,
      cohorts: catalog.cohorts.map((c) => ({
        name: c.name,
        member_cap: c.member_cap,
        price: formatUsd(c.price_usd_micros),
        price_usd_micros: c.price_usd_micros,
        ...(c.graduated_usd_micros
          ? { graduated: c.graduated_usd_micros.map((p, i) => ({ key: i + 1, price: formatUsd(p), price_usd_micros: p })) }
          : {}),
      })),
      max_keys_per_account: maxKeys,
      quantity: { min: 1, max: maxKeys, default: 1 },
      per_use: {
        header: "pay-network-pay-id",
        price_usd_micros: limits.per_use_price_usd_micros,
        price: formatUsdExact(limits.per_use_price_usd_micros),
        index_free: true,
      },
    },
    loyalty_credit: {
      description: "When the next cohort tier opens, every member of the previous cohort gets 10% off the next monthly cycle.",
      credits: Object.fromEntries(
        catalog.cohorts
          .filter((c) => c.loyalty_credit_usd_micros > 0)
          .map((c) => [c.name, { credit: formatUsd(c.loyalty_credit_usd_micros), credit_usd_micros: c.loyalty_credit_usd_micros }]),
      ),
    },
    subscription_options: [
      { id: "single", description: "One membership key", quantity: 1, monthly_retrievals: limits.per_key_monthly },
      {
        id: "multi",
        description: `2 to ${maxKeys - 1} keys, priced per key (graduated in the inaugural cohort)`,
        quantity: 2,
        monthly_retrievals: 2 * limits.per_key_monthly,
      },
      {
        id: "volume",
        description: `${maxKeys} keys: the volume plan (daily ${limits.daily_scale} per key, monthly pooled)`,
        quantity: maxKeys,
        monthly_retrievals: limits.volume_monthly_5_keys,
      },
    ],
    notes: [
      "Prices are computed by the server from the account's cohort and the keys the account (agent_id, else contact) already holds; an account holds at most 5 keys. Prices are grandfathered: a member buys in its own cohort at its price; a new account joins the active cohort while it has seats (409 cohort_full when it is full and the next cohort is not open).",
      "Referral and loyalty credits are applied at the next renewal, not to a new purchase; the quote shows the account's balance.",
      "Send an Idempotency-Key header to make POST /api/checkout safe to retry.",
    ],
  };
}

/** Each payment method, whether this deployment has it configured, and how to use it. */
export function describeCheckoutMethods(deps: DomainDeps) {
  return PAYMENT_METHOD_REGISTRY.map((method) => method.describe(deps));
}
