/**
 * The ordered stages of a build. No logic of its own: it reads like a table of contents, each
 * stage adding to one `Diagnostics`, and nothing is written unless every check passed.
 */

import { realpathSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { pruneBuildCache } from "./cache.ts";
import type { ResolvedBuildConfig } from "./config.ts";
import { type ContentIssue, createDiagnostics, sortIssues } from "./diagnostics.ts";
import { sha256 } from "./digest.ts";
import { resolveBuildSigningKey } from "./signing-key.ts";
import { validateCatalog } from "./stages/catalog.ts";
import { buildChangelog, lintDelta, type PreviousBuild, readPreviousBuild } from "./stages/delta.ts";
import { withoutDrafts } from "./stages/drafts.ts";
import { type ArtifactSink, emitVertical } from "./stages/emit.ts";
import { emitCatalog } from "./stages/emit-catalog.ts";
import { checkExclusions } from "./stages/exclusions.ts";
import { checkFigureValues, readFigures, substituteFigures } from "./stages/figures.ts";
import { linkVerticals } from "./stages/link.ts";
import { loadContent } from "./stages/load.ts";
import { emitManifest, MANIFEST_FILE } from "./stages/manifest.ts";
import { parseSource } from "./stages/parse.ts";
import { parseNodeSources } from "./stages/parse-pool.ts";
import { lintPlaceholders } from "./stages/placeholders.ts";
import { checkReviewDates } from "./stages/review-dates.ts";
import { checkReviewRecords } from "./stages/review-records.ts";
import { checkRejectedRules, compileRules } from "./stages/rules.ts";
import { emitSearchIndexes } from "./stages/search-index.ts";
import { lintUntypedValues } from "./stages/untyped-values.ts";
import { validateNodes } from "./stages/validate.ts";
import { validateWrappers } from "./stages/wrappers.ts";
import { createStagedOutput, type PreviousOutput } from "./write.ts";

export interface BuildStats {
  nodes: number;
  verticals: number;
  durationMs: number;
  /** Mean lean/full size ratio over all nodes. */
  leanRatio: number;
}

export interface BuildResult {
  /** No fatal issue, and the output (if written) is published. */
  ok: boolean;
  issues: ContentIssue[];
  stats: BuildStats;
  buildId?: string;
  /** False when the build was identical to the published one (nothing republished). */
  changed: boolean;
  /** Where the data was published (`<outDir>/data`), when written. */
  dataDir?: string;
  /** Every emitted file by path, only when `write: false`. */
  files?: Map<string, string>;
}

/** Runs every stage in order. */
export async function runPipeline(config: ResolvedBuildConfig): Promise<BuildResult> {
  const started = performance.now();
  const diagnostics = createDiagnostics();
  const cache = config.cache;

  // 1–3. Read, parse and check each file on its own.
  const content = loadContent(config);
  const catalog = validateCatalog(content, config, diagnostics);
  const wrapper = validateWrappers(content.wrappers, config, diagnostics);
  const figures = readFigures(content.figures, diagnostics);
  const parsed = await parseNodeSources(substituteFigures(content.nodes, figures, diagnostics), cache);
  const indexes = content.indexes.map((f) => parseSource(f, cache));
  const validated = validateNodes(parsed, diagnostics);
  const nodes = compileRules(withoutDrafts(validated, config), diagnostics);
  // Every diagnostic of a run at once: the rules of nodes the schema rejected are checked too.
  checkRejectedRules(parsed, new Set(validated.map((n) => n.source.file)), diagnostics);
  checkExclusions(nodes, diagnostics);
  lintPlaceholders(nodes, config, diagnostics);
  lintUntypedValues(nodes, config, diagnostics);
  checkReviewDates(nodes, config, diagnostics);
  checkReviewRecords(content, nodes, config.today, diagnostics);
  checkFigureValues(nodes, figures, diagnostics);

  // 4–5. Link nodes into vertical graphs; derive the change feed and lint it against the last build.
  const graphs = catalog ? linkVerticals({ nodes, nodeFiles: content.nodes, indexes, catalog }, config, diagnostics) : [];
  const changelog = buildChangelog(graphs);
  const previous = readPreviousBuild(config.previousDataDir);
  lintDelta(graphs, changelog, previous, diagnostics, { now: config.now });

  const stats = (leanRatio: number): BuildStats => ({
    nodes: graphs.reduce((n, g) => n + g.nodes.length, 0),
    verticals: graphs.length,
    durationMs: Math.round(performance.now() - started),
    leanRatio,
  });
  if (diagnostics.hasFatal() || !catalog || !wrapper) {
    return { ok: false, issues: sortIssues(diagnostics.issues), stats: stats(0), changed: false };
  }

  // 6–7. Emit every artifact (self-checked) into a staging folder or memory, manifest last.
  const staged = config.write ? createStagedOutput(config.outDir, _reusable(config, previous)) : undefined;
  const files = new Map<string, string>();
  const digests = new Map<string, string>();
  const record = (path: string, digest: string) => (path === MANIFEST_FILE ? digest : (digests.set(path, digest), digest));
  const sink: ArtifactSink = {
    write: (path, text) => record(path, staged ? staged.write(path, text) : (files.set(path, text), sha256(text))),
    reuse: (path, digest) => (staged?.reuse(path, digest) ? (record(path, digest), true) : false),
  };
  const emittedKeys = new Set<string>();
  const ctx = { catalog, wrapper, cache, diagnostics, sink, emittedKeys };
  try {
    const ratios = graphs.flatMap((g) => emitVertical(g, ctx));
    emitCatalog(graphs, changelog, ctx);
    emitSearchIndexes(graphs, ctx);
    const signing = resolveBuildSigningKey(config);
    const manifest = emitManifest({ apiVersion: catalog.apiVersion, graphs, files: digests, ratios, signing }, ctx);
    if (diagnostics.hasFatal()) {
      staged?.abort();
      return { ok: false, issues: sortIssues(diagnostics.issues), stats: stats(manifest.lean_ratio), changed: false };
    }

    // 8. Publish atomically; drop cache entries this build did not use.
    const published = staged?.commit(manifest.build_id, signing.key.kid);
    if (cache) {
      const used = [...parsed, ...indexes].map((p) => p.parsed.digest);
      pruneBuildCache(cache, { parsed: new Set(used), versions: new Set(nodes.map((n) => n.version)), emitted: emittedKeys });
    }
    return {
      ok: true,
      issues: sortIssues(diagnostics.issues),
      stats: stats(manifest.lean_ratio),
      buildId: manifest.build_id,
      changed: published?.changed ?? true,
      ...(staged ? { dataDir: config.dataDir } : { files }),
    };
  } catch (error) {
    staged?.abort();
    throw error;
  }
}

// --- Internal helpers ---

/** The published build files may be hard-linked from, when it is on the same disk as the output. */
function _reusable(config: ResolvedBuildConfig, previous: PreviousBuild | undefined): PreviousOutput | undefined {
  if (!previous || !config.previousDataDir) return undefined;
  try {
    return { dir: realpathSync(config.previousDataDir), files: previous.manifest.files };
  } catch {
    return undefined;
  }
}
