/**
 * Stage 7b, emit the vertical-independent artifacts: `catalog.json` (resolved verticals and the
 * one alias map), `status.json` (static status parts with counts from content) and `changelog.json`.
 */
import { type ChangelogEntry, ChangelogSchema } from "../../runtime/shared/schema/artifacts.ts";
import { type Catalog, CatalogSchema, type ResolvedVertical } from "../../runtime/shared/schema/catalog.ts";
import { type StatusStatic, StatusStaticSchema } from "../../runtime/shared/schema/status.ts";
import { compileSchema } from "../schema/validator.ts";
import type { CatalogData } from "./catalog.ts";
import { type EmitContext, emitArtifact } from "./emit.ts";
import type { VerticalGraph } from "./link.ts";
import { toUsd } from "./unlock.ts";

const CHECKS = {
  catalog: compileSchema(CatalogSchema),
  status: compileSchema(StatusStaticSchema),
  changelog: compileSchema(ChangelogSchema),
};

/** The slugs whose counts the status object reports (spec: status object `ai_compliance`, `travel`). */
const AI_COMPLIANCE = "ai-compliance";
const TRAVEL = "travel";

/** Writes catalog.json, status.json and changelog.json. */
export function emitCatalog(graphs: readonly VerticalGraph[], changelog: readonly ChangelogEntry[], ctx: EmitContext): void {
  const catalog = toCatalog(ctx.catalog, graphs);
  emitArtifact("catalog.json", catalog, CHECKS.catalog, ctx);
  emitArtifact("status.json", toStatusStatic(ctx.catalog, graphs, catalog), CHECKS.status, ctx);
  emitArtifact("changelog.json", { entries: changelog }, CHECKS.changelog, ctx);
}

/** Catalogue entries resolved against content: status, node count (active nodes) and root. */
export function toCatalog(data: CatalogData, graphs: readonly VerticalGraph[]): Catalog {
  const verticals = data.verticals.map((entry): ResolvedVertical => {
    const graph = graphs.find((g) => g.slug === entry.slug);
    const nodeCount = graph ? _activeCount(graph) : 0;
    const { aliases, ...rest } = entry;
    return {
      ...rest,
      aliases: aliases ?? [],
      status: graph && graph.nodes.length > 0 ? "live" : entry.coming_soon ? "coming_soon" : "planned",
      node_count: nodeCount,
      root: graph?.index.root ?? null,
    };
  });
  return { api_version: data.apiVersion, verticals, slugs: data.slugs, cohorts: data.cohorts, limits: data.limits };
}

/**
 * The authored static status with `node_count`, `module_count` and `trial_modules` computed, and
 * the vertical lists in `product_status` (`{{live_verticals}}`, `{{open_verticals}}`) taken from
 * the resolved catalogue, so the text names the live verticals of the build it ships with.
 */
export function toStatusStatic(data: CatalogData, graphs: readonly VerticalGraph[], catalog = toCatalog(data, graphs)): StatusStatic {
  const aic = graphs.find((g) => g.slug === AI_COMPLIANCE);
  const travel = graphs.find((g) => g.slug === TRAVEL);
  const live = catalog.verticals.filter((v) => v.status === "live");
  const lists: Record<string, string> = {
    live_verticals: _names(live.filter((v) => !v.fully_open).map((v) => v.slug)),
    open_verticals: _names(live.filter((v) => v.fully_open).map((v) => v.slug)),
  };
  return {
    ...data.status,
    product_status: data.status.product_status.replace(/\{\{(live_verticals|open_verticals)\}\}/g, (_, name: string) => lists[name]!),
    cohort_progression: {
      ...data.status.cohort_progression,
      credit_examples: Object.fromEntries(
        data.cohorts.filter((c) => c.loyalty_credit_usd_micros > 0).map((c) => [c.name, toUsd(c.loyalty_credit_usd_micros)]),
      ),
    },
    ai_compliance: { ...data.status.ai_compliance, node_count: aic ? _activeCount(aic) : 0 },
    travel: {
      ...data.status.travel,
      module_count: travel ? _activeCount(travel) : 0,
      trial_modules: travel ? travel.nodes.filter((n) => n.trial && n.frontmatter.status === "active").length : 0,
    },
  };
}

// --- Internal helpers ---

/** `a`, `a and b`, `a, b and c`; `none` for an empty list. */
function _names(slugs: readonly string[]): string {
  if (slugs.length === 0) return "none";
  return slugs.length === 1 ? slugs[0]! : `${slugs.slice(0, -1).join(", ")} and ${slugs.at(-1)!}`;
}

function _activeCount(graph: VerticalGraph): number {
  return graph.nodes.filter((n) => n.frontmatter.status === "active").length;
}
