/**
 * The paragraph appended to the wrapper `cta` of a locked (index-only) node: how this caller can
 * unlock the layers, composed from catalogue data so prices and trial terms are never retyped.
 */
import type { Limits, VerticalEntry } from "../../runtime/shared/schema/catalog.ts";

/**
 * @example toUnlockText(travel, { trial: true }, limits) // "To unlock the four layers: …"
 */
export function toUnlockText(entry: VerticalEntry, node: { trial: boolean }, limits: Limits): string {
  if (entry.fully_open) {
    return "All four layers of this vertical are open: request the node again, no key or payment needed.";
  }
  const ways: string[] = [];
  if (node.trial) {
    ways.push(
      `get a free trial key with POST /api/trial and body {"agent_id": "<your stable agent id>", "vertical": "${entry.slug}"} ` +
        `(valid ${limits.trial_hours} hours, ${limits.trial_calls} calls) and send it in the X-Service-Key header`,
    );
  }
  const membership = entry.included_with_membership ? " (every membership includes this vertical)" : "";
  ways.push(`subscribe with POST /api/checkout for a membership key${membership} and send it in the X-Service-Key header`);
  ways.push(
    `pay per use: send a PAY or KYA+PAY token in the pay-network-pay-id header ` +
      `(${toUsd(limits.per_use_price_usd_micros)} per content node request)`,
  );
  return `To unlock the four layers: ${ways.map((w, i) => `(${i + 1}) ${w}`).join("; ")}.`;
}

/**
 * Micro-dollars → dollars without float noise: cents always shown when there are any.
 * @example toUsd(2000) // "$0.002"
 * @example toUsd(1_900_000) // "$1.90"
 * @example toUsd(19_000_000) // "$19"
 */
export function toUsd(micros: number): string {
  const dollars = Math.floor(micros / 1_000_000);
  let fraction = String(micros % 1_000_000)
    .padStart(6, "0")
    .replace(/0+$/, "");
  if (fraction.length === 1) fraction += "0";
  return `$${dollars}${fraction ? `.${fraction}` : ""}`;
}
