/**
 * The service on the 10,000-node synthetic corpus, for the benches that watch it under load for a
 * while (`bench/startup.ts`, `bench/soak.ts`): the corpus written (bench/corpus.ts) and built into a
 * temp folder, the production bundle started on it with every limit raised, the paths of its nodes,
 * and the process's resident memory read from /proc.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { buildContent } from "../build/index.ts";
import { bundleServer, freePort } from "../test/helpers/child-server.ts";
import { nodeId, writeCorpus } from "./corpus.ts";
import { waitReady } from "./load-tools.ts";

const REAL_CONTENT = fileURLToPath(new URL("../content/", import.meta.url));

export interface CorpusServerOptions {
  verticals: number;
  nodesPerVertical: number;
  admin: string;
  /** Node flags before the bundle (a heap snapshot signal, a GC trace). */
  nodeArgs?: string[];
  /** Variables on top of the bench's own (MALLOC_ARENA_MAX, ARTIFACT_CACHE_MB…). */
  env?: Record<string, string>;
}

export interface CorpusServer {
  url: string;
  proc: ChildProcess;
  /** The build's counts. */
  stats: { nodes: number; verticals: number };
  /** Every node once, `/api/demo` with the vertical and node; every other one lean. */
  paths: string[];
  /** Process start to the first `/healthz` 200. */
  readyMs: number;
  /** Stops the server and removes the corpus, its build and the state folder. */
  stop(): void;
}

export async function startCorpusServer(options: CorpusServerOptions): Promise<CorpusServer> {
  const tmp = mkdtempSync(join(tmpdir(), "vkr-bench-corpus-"));
  let proc: ChildProcess | undefined;
  const stop = () => {
    proc?.kill("SIGTERM");
    rmSync(tmp, { recursive: true, force: true });
  };
  try {
    const { distDir, stats } = await _corpusBuild(options, process.env.BENCH_CORPUS_DIR || tmp);
    // Bundled inside the repo (.tmp/), so its external native packages resolve from node_modules.
    const bundle = bundleServer();

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const started = performance.now();
    proc = spawn(process.execPath, [...(options.nodeArgs ?? []), bundle], {
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        HOST: "127.0.0.1",
        DIST_DIR: distDir,
        DATA_DIR: join(tmp, "data"),
        ADMIN_KEY: options.admin,
        LOG_LEVEL: "warn",
        // The corpus's first vertical is fully open, and free reads are limited per client (120 a
        // minute by default): from one load generator they would be 429s, not retrievals.
        ANON_RATE_PER_MINUTE: String(1e9),
        RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 1e9, daily_standard: 1e9, daily_scale: 1e9, per_key_monthly: 1e9 }),
        ...options.env,
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    await waitReady(proc, `${url}/healthz`, { timeoutMs: 600_000, intervalMs: 10 });
    const readyMs = performance.now() - started;
    const slugs = Array.from({ length: options.verticals }, (_, v) => `bench-${String(v + 1).padStart(2, "0")}`);
    const paths = slugs.flatMap((slug) =>
      Array.from(
        { length: options.nodesPerVertical },
        (_, i) => `/api/demo?vertical=${slug}&node=${nodeId(slug, i + 1)}${i % 2 ? "&lean=true" : ""}`,
      ),
    );
    return { url, proc, stats, paths, readyMs, stop };
  } catch (error) {
    stop();
    throw error;
  }
}

/** Resident set size of a process in MB (Linux /proc), NaN elsewhere. */
export function rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

// --- Internal helpers ---

/**
 * The corpus written and built in `dir`, or the build already there when it was made with the same
 * options (BENCH_CORPUS_DIR keeps one between runs: building 10,000 nodes takes minutes on a
 * loaded machine, and the build is read only).
 */
async function _corpusBuild(
  options: CorpusServerOptions,
  dir: string,
): Promise<{ distDir: string; stats: { nodes: number; verticals: number } }> {
  mkdirSync(dir, { recursive: true });
  const distDir = join(dir, "dist");
  const marker = join(dir, "corpus.json");
  const made = JSON.stringify({ verticals: options.verticals, nodesPerVertical: options.nodesPerVertical });
  if (existsSync(marker)) {
    const kept = JSON.parse(readFileSync(marker, "utf8")) as { made: string; stats: { nodes: number; verticals: number } };
    if (kept.made === made) return { distDir, stats: kept.stats };
  }
  const contentDir = join(dir, "content");
  rmSync(contentDir, { recursive: true, force: true });
  rmSync(distDir, { recursive: true, force: true });
  writeCorpus(contentDir, REAL_CONTENT, { verticals: options.verticals, nodesPerVertical: options.nodesPerVertical });
  const built = await buildContent({ contentDir, outDir: distDir, rootDir: dir });
  if (!built.ok) throw new Error("benchmark corpus failed to build");
  const stats = { nodes: built.stats.nodes, verticals: built.stats.verticals };
  writeFileSync(marker, JSON.stringify({ made, stats }));
  return { distDir, stats };
}
