/**
 * Stage 6, delta: the change feed as a pure function of the authored dates. A node has an `added`
 * entry at `created`, an `updated` entry at `updated` when later than `created`, and a
 * `deprecated` entry at `deprecated_at`; entries sort by (`at`, `id`), the pair a cursor points
 * after. With a previous build, lints what would make the feed lie to a client that already synced.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ChangelogEntry, Manifest } from "../../runtime/shared/schema/artifacts.ts";
import { type Diagnostics, toDisplayPath } from "../diagnostics.ts";
import type { GraphNode, VerticalGraph } from "./link.ts";

/** What the lint needs from the previous build: its manifest and its changelog. */
export interface PreviousBuild {
  manifest: Manifest;
  entries: ChangelogEntry[];
}

/** @example buildChangelog(graphs)[0] // { id: "travel/eu261-compensation/added", change: "added", … } */
export function buildChangelog(graphs: readonly VerticalGraph[]): ChangelogEntry[] {
  const entries: ChangelogEntry[] = [];
  for (const graph of graphs) {
    for (const node of graph.nodes) {
      const entry = (change: ChangelogEntry["change"], at: string): ChangelogEntry => ({
        id: `${graph.slug}/${node.id}/${change}`,
        node_id: node.id,
        vertical: graph.slug,
        change,
        at,
        version: node.version,
        title: node.frontmatter.title,
        ...(change === "deprecated" && node.frontmatter.replaced_by ? { replaced_by: node.frontmatter.replaced_by } : {}),
      });
      entries.push(entry("added", node.dates.created));
      if (node.dates.updated > node.dates.created) entries.push(entry("updated", node.dates.updated));
      if (node.dates.deprecated_at) entries.push(entry("deprecated", node.dates.deprecated_at));
    }
  }
  return entries.sort(compareEntries);
}

/** Order of the feed: by time, then by entry id. */
export function compareEntries(a: Pick<ChangelogEntry, "at" | "id">, b: Pick<ChangelogEntry, "at" | "id">): number {
  return a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The previous build in `dataDir`, or `undefined` when there is none or it cannot be read. */
export function readPreviousBuild(dataDir: string | false): PreviousBuild | undefined {
  if (!dataDir) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(join(dataDir, "manifest.json"), "utf8")) as Manifest;
    const { entries } = JSON.parse(readFileSync(join(dataDir, "changelog.json"), "utf8")) as { entries: ChangelogEntry[] };
    return Array.isArray(entries) && manifest?.verticals ? { manifest, entries } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Warns (never fails) when a node's content changed (its version, a digest of frontmatter and
 * layers, differs from the previous manifest's) while `updated` stayed exactly what the previous
 * build published, and when a new entry sorts before the previous build's last entry: cursors
 * already past it would never see it. Only content decides, never date order: a revert (content
 * and `updated` back to an earlier state) and a second edit on the day `updated` already names
 * (a date without a time cannot move further that day) are not warned about.
 */
export function lintDelta(
  graphs: readonly VerticalGraph[],
  entries: readonly ChangelogEntry[],
  previous: PreviousBuild | undefined,
  diagnostics: Diagnostics,
  options: { now?: Date } = {},
): void {
  const today = (options.now ?? new Date()).toISOString().slice(0, 10);
  if (!previous || previous.entries.length === 0) return;
  const lastChange = new Map<string, string>();
  for (const e of previous.entries) {
    if (e.change === "deprecated") continue;
    const key = `${e.vertical}/${e.node_id}`;
    if ((lastChange.get(key) ?? "") < e.at) lastChange.set(key, e.at);
  }
  const nodes = new Map<string, GraphNode>();
  for (const graph of graphs) {
    for (const node of graph.nodes) {
      nodes.set(`${graph.slug}/${node.id}`, node);
      const before = previous.manifest.verticals[graph.slug]?.nodes[node.id];
      const lastAt = lastChange.get(`${graph.slug}/${node.id}`);
      const sameDayEdit = /^\d{4}-\d{2}-\d{2}$/.test(String(node.frontmatter.updated)) && String(node.frontmatter.updated) === today;
      if (before && lastAt && before.version !== node.version && node.dates.updated === lastAt && !sameDayEdit) {
        _warn(
          node,
          diagnostics,
          "updated_not_bumped",
          "updated",
          `content changed since the last build but updated (${node.frontmatter.updated}) did not move; set it to now`,
        );
      }
    }
  }

  const seen = new Set(previous.entries.map((e) => `${e.id}@${e.at}`));
  const last = [...previous.entries].sort(compareEntries).at(-1)!;
  for (const entry of entries) {
    if (seen.has(`${entry.id}@${entry.at}`) || compareEntries(entry, last) >= 0) continue;
    const node = nodes.get(`${entry.vertical}/${entry.node_id}`);
    if (!node) continue;
    const field = entry.change === "added" ? "created" : entry.change === "updated" ? "updated" : "deprecated_at";
    _warn(
      node,
      diagnostics,
      "changelog_backdated",
      field,
      `new ${entry.change} entry at ${entry.at} sorts before the last published entry (${last.at}, ${last.id}); clients that synced since will not see it: use a later date-time`,
    );
  }
}

// --- Internal helpers ---

function _warn(
  node: GraphNode,
  diagnostics: Diagnostics,
  code: "updated_not_bumped" | "changelog_backdated",
  field: string,
  message: string,
): void {
  diagnostics.add({ code, file: node.source.file, line: node.parsed.locate([field]), pointer: toDisplayPath([field]), message });
}
