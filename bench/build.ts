/**
 * `npm run bench:build`: generates a synthetic corpus (10,000 nodes over 10 verticals by default)
 * in a temp folder, builds it, then changes one node and rebuilds. Prints nodes/second, peak RSS,
 * the full build time and the one-node rebuild time. The rebuild reuses the in-process cache
 * (`createBuildCache`, as watch mode does): unchanged files are not parsed or tokenised again.
 * Env: BENCH_VERTICALS, BENCH_NODES_PER_VERTICAL to change the corpus size.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { buildContent, createBuildCache } from "../build/index.ts";
import { nodeId, toNodeMarkdown, writeCorpus } from "./corpus.ts";

const VERTICALS = Number(process.env.BENCH_VERTICALS ?? 10);
const PER_VERTICAL = Number(process.env.BENCH_NODES_PER_VERTICAL ?? 1000);
const REAL_CONTENT = fileURLToPath(new URL("../content/", import.meta.url));

const tmp = mkdtempSync(join(tmpdir(), "vkr-bench-build-"));
try {
  const contentDir = join(tmp, "content");
  const t0 = performance.now();
  writeCorpus(contentDir, REAL_CONTENT, { verticals: VERTICALS, nodesPerVertical: PER_VERTICAL });
  const generated = performance.now() - t0;

  const cache = createBuildCache();
  const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, cache };
  const full = await buildContent(options);
  const fullPeakMb = process.resourceUsage().maxRSS / 1024;
  if (!full.ok)
    throw new Error(
      `benchmark corpus failed to build: ${full.issues
        .slice(0, 5)
        .map((i) => i.message)
        .join("; ")}`,
    );

  // One author edit: body text and `updated` of a node in the middle of the second vertical.
  const slug = "bench-02";
  const middle = Math.ceil(PER_VERTICAL / 2);
  writeFileSync(join(contentDir, slug, `${nodeId(slug, middle)}.md`), toNodeMarkdown(slug, middle, PER_VERTICAL, 1));
  const incremental = await buildContent(options);
  if (!incremental.ok || !incremental.changed) throw new Error("one-node rebuild did not publish a new build");

  // The same rebuild without a cache: what a one-shot `npm run build:content` costs.
  cache.parsed.clear();
  cache.emitted.clear();
  const cold = await buildContent({ ...options, cache: undefined });

  const nodes = full.stats.nodes;
  const peakMb = process.resourceUsage().maxRSS / 1024;
  console.log(`corpus: ${nodes} nodes in ${full.stats.verticals} verticals (generated in ${(generated / 1000).toFixed(1)} s)`);
  console.log(
    `full build:           ${(full.stats.durationMs / 1000).toFixed(2)} s  (${Math.round(nodes / (full.stats.durationMs / 1000))} nodes/s)`,
  );
  console.log(`one-node rebuild:     ${(incremental.stats.durationMs / 1000).toFixed(2)} s  (in-process cache)`);
  console.log(`uncached rebuild:     ${(cold.stats.durationMs / 1000).toFixed(2)} s`);
  console.log(`peak RSS:             ${Math.round(fullPeakMb)} MB after the full build, ${Math.round(peakMb)} MB after all three`);
  console.log(`mean lean/full size:  ${(full.stats.leanRatio * 100).toFixed(1)}%`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
