/**
 * The build's verticals grouped by access, in words, for texts that name them (the trial route's
 * refusal, the published OpenAPI description). Derived from the resolved catalogue, so a vertical
 * that goes live changes every such text with the build that ships its content.
 */
import type { ResolvedVertical } from "../../shared/schema/catalog.ts";

/** Live verticals a trial key can be requested for, in catalogue order. */
export function trialVerticals(verticals: readonly ResolvedVertical[]): ResolvedVertical[] {
  return verticals.filter((v) => v.status === "live" && v.trial !== undefined);
}

/** "every node" or "the first 5 modules": what a trial key of the vertical opens. */
export function describeTrialRule(vertical: ResolvedVertical): string {
  if (!vertical.trial) return "no trial";
  return "nodes" in vertical.trial ? "every node" : `the first ${vertical.trial.first} modules`;
}

/**
 * One paragraph: which verticals are fully open, which are live behind keys (with their trial
 * rule and free index), which are coming soon. @example describeVerticalAccess(catalog.verticals)
 */
export function describeVerticalAccess(verticals: readonly ResolvedVertical[]): string {
  const live = verticals.filter((v) => v.status === "live");
  const open = live.filter((v) => v.fully_open).map((v) => v.slug);
  const gated = live
    .filter((v) => !v.fully_open)
    .map((v) => {
      const traits = [
        v.index_free ? "index free" : "index for keys only",
        v.trial ? `trial: ${describeTrialRule(v)}` : "no trial",
        ...(v.included_with_membership ? ["included with every membership"] : []),
      ];
      return `${v.slug} (${traits.join("; ")})`;
    });
  const soon = verticals.filter((v) => v.status === "coming_soon").map((v) => v.slug);
  return [
    "Verticals in this build (from the catalogue):",
    `fully open: ${_list(open)};`,
    `live, layers for members, trial keys and per-use payment: ${_list(gated)};`,
    `coming soon (waitlist and demand signals): ${_list(soon)}.`,
    "Every other paid vertical is planned.",
  ].join(" ");
}

// --- Internal helpers ---

function _list(items: readonly string[]): string {
  return items.length > 0 ? items.join(", ") : "none";
}
