/**
 * Stage 7, emit: every artifact the runtime may serve, precomputed (docs/architecture.md: "build
 * emits, runtime reads"). Each artifact is checked against its `runtime/shared/schema` shape before
 * it reaches the sink; a failure is a build bug, reported as `artifact_invalid`.
 */

import {
  type IndexGraph,
  IndexGraphSchema,
  LeanIndexGraphSchema,
  type LeanNodeResponse,
  LeanNodeResponseSchema,
  type NodeData,
  type NodeResponse,
  NodeResponseSchema,
  type Wrapper,
} from "../../runtime/shared/schema/artifacts.ts";
import { LAYER_NAMES } from "../../runtime/shared/schema/catalog.ts";
import { toUnlockHint } from "../../runtime/shared/schema/unlock.ts";
import type { BuildCache } from "../cache.ts";
import { type Diagnostics, toDisplayPath } from "../diagnostics.ts";
import { sha256, toCanonicalJson } from "../digest.ts";
import { type CheckValue, compileSchema } from "../schema/validator.ts";
import { countTokens } from "../tokens.ts";
import type { CatalogData } from "./catalog.ts";
import type { GraphNode, VerticalGraph } from "./link.ts";
import { toUnlockText } from "./unlock.ts";

/** Receives artifacts; paths are relative to `dist/data`. */
export interface ArtifactSink {
  /** Takes one artifact as canonical JSON text; returns its sha256. */
  write(path: string, text: string): string;
  /** Reuses the previous build's identical file instead of writing it; false when it cannot. */
  reuse(path: string, digest: string): boolean;
}

export interface EmitContext {
  catalog: CatalogData;
  wrapper: Wrapper;
  cache: BuildCache | undefined;
  diagnostics: Diagnostics;
  sink: ArtifactSink;
  /** Cache keys of the node artifacts this build produced (so the cache can drop the rest). */
  emittedKeys: Set<string>;
}

const CHECKS = {
  node: compileSchema(NodeResponseSchema),
  lean: compileSchema(LeanNodeResponseSchema),
  index: compileSchema(IndexGraphSchema),
  leanIndex: compileSchema(LeanIndexGraphSchema),
};

/** Emits one vertical: index graphs and four variants per node. Returns each node's lean/full size ratio. */
export function emitVertical(graph: VerticalGraph, ctx: EmitContext): number[] {
  const ratios: number[] = [];
  const tokens = new Map<string, NodeData["layer_tokens"]>();
  const sizes = new Map<string, { lean: number; full: number }>();
  const base = `verticals/${graph.slug}`;
  // Everything a node's artifacts depend on besides the node itself and its next_nodes' titles.
  const shared = sha256(toCanonicalJson({ wrapper: ctx.wrapper, entry: graph.entry, limits: ctx.catalog.limits, slug: graph.slug }));
  for (const node of graph.nodes) {
    const nextNodes = node.frontmatter.next_nodes.map((id) => ({ id, title: graph.byId.get(id)?.frontmatter.title ?? id }));
    const key = `${shared}|${node.version}|${node.trial}|${JSON.stringify(nextNodes)}`;
    ctx.emittedKeys.add(key);
    const previous = ctx.cache?.emitted.get(key);
    if (previous && _reuseAll(previous.files, ctx.sink)) {
      tokens.set(node.id, previous.layerTokens);
      sizes.set(node.id, previous.sizes);
      ratios.push(previous.leanRatio);
      continue;
    }
    const data = toNodeData(node, ctx.cache);
    tokens.set(node.id, data.layer_tokens);
    const full: NodeResponse = { vertical: graph.slug, node: data, next_nodes: nextNodes, ...ctx.wrapper };
    const lean: LeanNodeResponse = { node: data, next_nodes: nextNodes };
    const lockedData: NodeData = { ...data, layers: {}, locked_layers: [...LAYER_NAMES] };
    const cta = `${ctx.wrapper.cta}\n\n${toUnlockText(graph.entry, node, ctx.catalog.limits)}`;
    // Fully open verticals are never served locked, so their locked files carry no hint.
    const unlock = graph.entry.fully_open ? {} : { unlock: toUnlockHint(graph.entry, node, ctx.catalog.limits) };
    const path = `${base}/nodes/${node.id}`;
    const variants: Array<[string, unknown, CheckValue]> = [
      [`${path}.json`, full, CHECKS.node],
      [`${path}.lean.json`, lean, CHECKS.lean],
      [`${path}.locked.json`, { ...full, node: lockedData, cta, ...unlock }, CHECKS.node],
      // Lean is "only the node data and next_nodes" (spec), so the hint stays in the full form.
      [`${path}.locked.lean.json`, { node: lockedData, next_nodes: nextNodes }, CHECKS.lean],
    ];
    const emitted = variants.map(([p, value, check]) => ({ path: p, ...emitArtifact(p, value, check, ctx) }));
    const size = { lean: Buffer.byteLength(emitted[1]!.text), full: Buffer.byteLength(emitted[0]!.text) };
    sizes.set(node.id, size);
    const leanRatio = size.lean / size.full;
    ratios.push(leanRatio);
    ctx.cache?.emitted.set(key, { files: emitted.map((e) => [e.path, e.digest]), leanRatio, layerTokens: data.layer_tokens, sizes: size });
  }
  const index: IndexGraph = {
    vertical: graph.slug,
    title: graph.index.title,
    summary: graph.index.summary,
    status: "live",
    root: graph.index.root,
    nodes: graph.nodes.map((n) => ({
      id: n.id,
      title: n.frontmatter.title,
      summary: n.frontmatter.summary,
      next_nodes: n.frontmatter.next_nodes,
      trial: n.trial,
      order: n.frontmatter.order,
      status: n.frontmatter.status,
      version: n.version,
      layer_tokens: tokens.get(n.id)!,
      // Bytes of the unlocked full and lean node responses, so an agent can choose.
      full_bytes: sizes.get(n.id)!.full,
      lean_bytes: sizes.get(n.id)!.lean,
    })),
    ...ctx.wrapper,
  };
  emitArtifact(`${base}/index.json`, index, CHECKS.index, ctx);
  const { node_types_explained, performance_preview, confidence_calibration, cta, community_note, ...leanIndex } = index;
  emitArtifact(`${base}/index.lean.json`, leanIndex, CHECKS.leanIndex, ctx);
  return ratios;
}

/** Node data with all four layers unlocked. */
export function toNodeData(node: GraphNode, cache: BuildCache | undefined): NodeData {
  const fm = node.frontmatter;
  const tokens = _layerTokens(node, cache);
  return {
    id: node.id,
    title: fm.title,
    summary: fm.summary,
    version: node.version,
    status: fm.status,
    created: node.dates.created,
    updated: node.dates.updated,
    ...(fm.reviewed ? { reviewed: fm.reviewed } : {}),
    ...(fm.review_by ? { review_by: fm.review_by } : {}),
    ...(node.dates.deprecated_at ? { deprecated_at: node.dates.deprecated_at } : {}),
    ...(fm.replaced_by ? { replaced_by: fm.replaced_by } : {}),
    trial: node.trial,
    sources: fm.sources.map((s) => ({ id: s.id, title: s.title, ...(s.url ? { url: s.url } : {}) })),
    layer_tokens: tokens,
    layers: {
      logic: { text: node.layers.logic.text, token_estimate: tokens.logic, ...node.ruleSet },
      directive: { text: node.layers.directive.text, token_estimate: tokens.directive },
      skill: { text: node.layers.skill.text, token_estimate: tokens.skill },
      action: { text: node.layers.action.text, token_estimate: tokens.action },
    },
    locked_layers: [],
  };
}

/** Self-checks a value against its schema, serialises it canonically and hands it to the sink. */
export function emitArtifact(
  path: string,
  value: unknown,
  check: CheckValue,
  ctx: Pick<EmitContext, "diagnostics" | "sink">,
): { text: string; digest: string } {
  for (const e of check(value)) {
    ctx.diagnostics.add({
      code: "artifact_invalid",
      file: `dist/data/${path}`,
      pointer: toDisplayPath(e.path) || undefined,
      message: `build bug, output breaks the contract: ${e.message}`,
    });
  }
  const text = toCanonicalJson(value);
  return { text, digest: ctx.sink.write(path, text) };
}

// --- Internal helpers ---

/** All four files or none: a half-reused node would mix two builds. */
function _reuseAll(files: Array<[string, string]>, sink: ArtifactSink): boolean {
  for (const [path, digest] of files) if (!sink.reuse(path, digest)) return false;
  return true;
}

/**
 * Tokens per layer as served: the logic layer counts its text plus its compiled rules (what an
 * agent actually receives), cached by node version because that is a pure function of it.
 */
function _layerTokens(node: GraphNode, cache: BuildCache | undefined): NodeData["layer_tokens"] {
  let ruleTokens = cache?.ruleTokens.get(node.version);
  if (ruleTokens === undefined) {
    ruleTokens = node.ruleSet.rules.length + node.ruleSet.facts.length > 0 ? countTokens(JSON.stringify(node.ruleSet)) : 0;
    cache?.ruleTokens.set(node.version, ruleTokens);
  }
  return {
    logic: node.layers.logic.tokens + ruleTokens,
    directive: node.layers.directive.tokens,
    skill: node.layers.skill.tokens,
    action: node.layers.action.tokens,
  };
}
