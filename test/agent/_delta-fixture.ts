/**
 * The dated fixture of the change-feed suites: creation dates spread over October (nodes of the
 * same `order` share a date, so ties are broken by entry id), an update of every root node at one
 * instant, and one deprecation. `v2` adds one travel node after everything in v1.
 */
import type { FixtureOptions } from "../helpers/fixture-content.ts";

export const UPDATED_AT = "2026-11-10T12:00:00Z";
export const ADDED_IN_V2_AT = "2026-11-20T08:00:00Z";

export const TIMELINE: FixtureOptions = {
  dates: (vertical, node) => {
    if (node.id === "trv-m8") return { created: ADDED_IN_V2_AT, updated: ADDED_IN_V2_AT };
    const created = `2026-10-${String(node.order * 2).padStart(2, "0")}T09:00:00Z`;
    return {
      created,
      updated: node.order === 1 ? UPDATED_AT : created,
      ...(vertical === "real-estate" && node.id === "re-two" ? { deprecated_at: "2026-11-15T00:00:00Z", replaced_by: "re-one" } : {}),
    };
  },
};

export const TIMELINE_V2: FixtureOptions = { ...TIMELINE, extraNodes: { travel: [{ id: "trv-m8", order: 8, next: [] }] } };
