/**
 * Stage 5, link: assembles each vertical's graph. Checks `_index.md`, duplicate ids and orders,
 * dangling `next_nodes`/`replaced_by`, reachability from the root, and sets the trial flags from
 * the catalogue's trial rule. Deprecated nodes may be unlinked (nodes are never deleted).
 */
import { join } from "node:path";
import { suggestClosest } from "../../runtime/shared/did-you-mean.ts";
import type { VerticalEntry } from "../../runtime/shared/schema/catalog.ts";
import { type ResolvedBuildConfig, toDisplayFile } from "../config.ts";
import { type Diagnostics, type IssueCode, toDisplayPath } from "../diagnostics.ts";
import type { FieldPath } from "../locate.ts";
import { type VerticalIndex, VerticalIndexSchema } from "../schema/frontmatter.ts";
import { compileSchema } from "../schema/validator.ts";
import type { CatalogData } from "./catalog.ts";
import type { SourceFile } from "./load.ts";
import type { ParsedFile } from "./parse.ts";
import type { CompiledNode } from "./rules.ts";

export interface GraphNode extends CompiledNode {
  /** Unlocked by a trial key of this vertical. */
  trial: boolean;
}

export interface VerticalGraph {
  slug: string;
  entry: VerticalEntry;
  index: VerticalIndex;
  /** Sorted by `order`. */
  nodes: GraphNode[];
  byId: ReadonlyMap<string, GraphNode>;
}

export interface LinkInput {
  nodes: readonly CompiledNode[];
  /** Every node file, valid or not, so a broken node does not also break every link to it. */
  nodeFiles: readonly SourceFile[];
  indexes: readonly ParsedFile[];
  catalog: CatalogData;
}

const checkIndex = compileSchema(VerticalIndexSchema);

/** One graph per catalogue vertical that has a content folder, sorted by slug. */
export function linkVerticals(input: LinkInput, config: ResolvedBuildConfig, diagnostics: Diagnostics): VerticalGraph[] {
  const graphs: VerticalGraph[] = [];
  const folders = [...new Set(input.nodeFiles.map((f) => f.vertical!).concat(input.indexes.map((f) => f.source.vertical!)))].sort();
  for (const slug of folders) {
    const entry = input.catalog.verticals.find((v) => v.slug === slug);
    if (!entry) continue; // reported by the catalogue stage
    const index = _readIndex(slug, input.indexes, config, diagnostics);
    const nodes = input.nodes.filter((n) => n.vertical === slug);
    const known = new Set(input.nodeFiles.filter((f) => f.vertical === slug).map((f) => f.name));
    _checkIds(nodes, diagnostics);
    _checkLinks(nodes, known, diagnostics);
    const sorted = [...nodes].sort((a, b) => a.frontmatter.order - b.frontmatter.order || (a.id < b.id ? -1 : 1));
    const trialIds = _trialIds(entry, sorted);
    const graphNodes = sorted.map((n) => ({ ...n, trial: trialIds.has(n.id) }));
    const byId = new Map(graphNodes.map((n) => [n.id, n]));
    if (index) _checkReachable(index.data, index.pf, byId, known, diagnostics);
    if (index) graphs.push({ slug, entry, index: index.data, nodes: graphNodes, byId });
  }
  return graphs;
}

// --- Internal helpers ---

function _readIndex(slug: string, indexes: readonly ParsedFile[], config: ResolvedBuildConfig, diagnostics: Diagnostics) {
  const pf = indexes.find((f) => f.source.vertical === slug);
  if (!pf) {
    const file = toDisplayFile(config, join(config.contentDir, slug, "_index.md"));
    diagnostics.add({ code: "index_missing", file, message: `vertical "${slug}" has no _index.md (title, summary, root)` });
    return undefined;
  }
  if (pf.parsed.yamlError) {
    diagnostics.add({ code: "yaml_invalid", file: pf.source.file, line: pf.parsed.yamlError.line, message: pf.parsed.yamlError.message });
    return undefined;
  }
  const errors = checkIndex(pf.parsed.data ?? {});
  for (const e of errors) {
    diagnostics.add({
      code: "index_invalid",
      file: pf.source.file,
      line: pf.parsed.locate(e.path),
      pointer: toDisplayPath(e.path) || undefined,
      message: e.message,
    });
  }
  return errors.length === 0 ? { pf, data: pf.parsed.data as VerticalIndex } : undefined;
}

function _report(node: CompiledNode, diagnostics: Diagnostics, code: IssueCode, path: FieldPath, message: string): void {
  diagnostics.add({ code, file: node.source.file, line: node.parsed.locate(path), pointer: toDisplayPath(path), message });
}

function _checkIds(nodes: readonly CompiledNode[], diagnostics: Diagnostics): void {
  const byId = new Map<string, CompiledNode>();
  const byOrder = new Map<number, CompiledNode>();
  for (const node of nodes) {
    const other = byId.get(node.frontmatter.id);
    if (other) _report(node, diagnostics, "id_duplicate", ["id"], `id "${node.frontmatter.id}" is also used by ${other.source.file}`);
    else byId.set(node.frontmatter.id, node);
    const sameOrder = byOrder.get(node.frontmatter.order);
    if (sameOrder)
      _report(node, diagnostics, "order_duplicate", ["order"], `order ${node.frontmatter.order} is also used by ${sameOrder.source.file}`);
    else byOrder.set(node.frontmatter.order, node);
  }
}

function _didYouMean(id: string, known: ReadonlySet<string>): string {
  const close = suggestClosest(id, [...known]);
  return close ? `; did you mean "${close}"?` : "";
}

function _checkLinks(nodes: readonly CompiledNode[], known: ReadonlySet<string>, diagnostics: Diagnostics): void {
  for (const node of nodes) {
    node.frontmatter.next_nodes.forEach((id, i) => {
      if (!known.has(id)) _report(node, diagnostics, "link_dangling", ["next_nodes", i], `unknown node "${id}"${_didYouMean(id, known)}`);
    });
    const replacedBy = node.frontmatter.replaced_by;
    if (replacedBy !== undefined && !known.has(replacedBy)) {
      _report(node, diagnostics, "link_dangling", ["replaced_by"], `unknown node "${replacedBy}"${_didYouMean(replacedBy, known)}`);
    }
  }
}

function _checkReachable(
  index: VerticalIndex,
  pf: ParsedFile,
  byId: ReadonlyMap<string, GraphNode>,
  known: ReadonlySet<string>,
  diagnostics: Diagnostics,
): void {
  if (!known.has(index.root)) {
    diagnostics.add({
      code: "root_unknown",
      file: pf.source.file,
      line: pf.parsed.locate(["root"]),
      pointer: "root",
      message: `root "${index.root}" is not a node of this vertical`,
    });
    return;
  }
  const reached = new Set<string>([index.root]);
  const queue = [index.root];
  while (queue.length > 0) {
    for (const next of byId.get(queue.shift()!)?.frontmatter.next_nodes ?? []) {
      if (!reached.has(next)) reached.add(next), queue.push(next);
    }
  }
  for (const node of byId.values()) {
    if (node.frontmatter.status === "active" && !reached.has(node.id)) {
      _report(
        node,
        diagnostics,
        "node_unreachable",
        ["id"],
        `node "${node.id}" cannot be reached from the root "${index.root}" via next_nodes`,
      );
    }
  }
}

/** `{ nodes: all }` → every node; `{ first: N }` → the first N active nodes by order. */
function _trialIds(entry: VerticalEntry, sorted: readonly CompiledNode[]): Set<string> {
  const trial = entry.trial;
  if (!trial) return new Set();
  if ("nodes" in trial) return new Set(sorted.map((n) => n.id));
  return new Set(
    sorted
      .filter((n) => n.frontmatter.status === "active")
      .slice(0, trial.first)
      .map((n) => n.id),
  );
}
