// Money is integer micro-dollars everywhere; only presentation turns it into a string.

/** @example formatUsd(19_000_000) === "$19"; formatUsd(1_900_000) === "$1.90" */
export function formatUsd(micros: number): string {
  const cents = Math.round(micros / 10_000);
  return cents % 100 === 0 ? `$${cents / 100}` : `$${(cents / 100).toFixed(2)}`;
}
