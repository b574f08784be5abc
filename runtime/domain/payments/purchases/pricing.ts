/**
 * Checkout prices, as pure functions of the catalogue's cohorts: a key costs its cohort's monthly
 * price, except in a cohort with graduated prices (inaugural: keys 1–5 of one account cost
 * $19/$17/$15/$13/$11), where the account's existing keys decide which tiers the new ones take.
 * Money is integer micro-dollars.
 */
import { apiError } from "../../../shared/errors.ts";
import type { Cohort, CohortName } from "../../../shared/schema/catalog.ts";

export interface PriceQuote {
  cohort: CohortName;
  keysHeld: number;
  quantity: number;
  /** Monthly price of each new key, in purchase order. */
  perKeyMicros: number[];
  totalMicros: number;
}

/** The price of the `position`-th key (1-based) an account holds in `cohort`. */
export function keyPriceMicros(cohort: Cohort, position: number): number {
  const tiers = cohort.graduated_usd_micros;
  if (!tiers || tiers.length === 0) return cohort.price_usd_micros;
  return tiers[Math.min(position, tiers.length) - 1]!;
}

/**
 * @example quoteKeys(cohorts, "inaugural", 1, 2, 5).perKeyMicros → [17_000_000, 15_000_000]
 */
export function quoteKeys(cohorts: Cohort[], cohortName: CohortName, keysHeld: number, quantity: number, maxKeys: number): PriceQuote {
  const cohort = cohorts.find((c) => c.name === cohortName);
  if (!cohort) throw new Error(`cohort ${cohortName} is not in the catalogue`);
  if (keysHeld + quantity > maxKeys) {
    throw apiError("conflict", {
      detail: `An account holds at most ${maxKeys} keys; this one holds ${keysHeld} and asked for ${quantity} more.`,
      extra: { keys_held: keysHeld, max_keys: maxKeys },
    });
  }
  const perKeyMicros = Array.from({ length: quantity }, (_, i) => keyPriceMicros(cohort, keysHeld + i + 1));
  return { cohort: cohortName, keysHeld, quantity, perKeyMicros, totalMicros: perKeyMicros.reduce((a, b) => a + b, 0) };
}
