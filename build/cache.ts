/**
 * In-process memo shared between builds of one process (watch mode, the benchmark). Entries are
 * keyed by content digests, so a stale entry can never be served: a changed file misses.
 */
import type { NodeData } from "../runtime/shared/schema/artifacts.ts";
import type { ParsedNode } from "./stages/parse.ts";

export interface BuildCache {
  /** Parsed node (frontmatter, layers, token counts) by sha256 of the raw file. */
  parsed: Map<string, ParsedNode>;
  /** Token count of a node's compiled rule set, by node version. */
  ruleTokens: Map<string, number>;
  /**
   * What a node's four artifacts came out as last time, by everything they depend on (see
   * `emit.ts`): lets a rebuild hard-link unchanged files from the previous build.
   */
  emitted: Map<string, EmittedNode>;
}

export interface EmittedNode {
  /** [path, sha256] of the four variants. */
  files: Array<[string, string]>;
  leanRatio: number;
  layerTokens: NodeData["layer_tokens"];
  /** Byte lengths of the full and lean files, for the index. */
  sizes: { lean: number; full: number };
}

/** @example const cache = createBuildCache(); await buildContent({ cache }); await buildContent({ cache }); */
export function createBuildCache(): BuildCache {
  return { parsed: new Map(), ruleTokens: new Map(), emitted: new Map() };
}

/** Drops entries not used by the latest build, so a long watch session does not grow forever. */
export function pruneBuildCache(cache: BuildCache, used: { parsed: Set<string>; versions: Set<string>; emitted: Set<string> }): void {
  for (const key of cache.parsed.keys()) if (!used.parsed.has(key)) cache.parsed.delete(key);
  for (const key of cache.ruleTokens.keys()) if (!used.versions.has(key)) cache.ruleTokens.delete(key);
  for (const key of cache.emitted.keys()) if (!used.emitted.has(key)) cache.emitted.delete(key);
}
