/**
 * `npm run bench:startup` (also the second half of `npm run bench`): the service on a large build.
 * Generates the 10,000-node synthetic corpus (bench/corpus.ts), builds it, starts the production
 * bundle on it and reports the time until it answers and its resident memory. Then it drives
 * metered retrievals spread over every node (so the artifact cache fills and turns over) and
 * samples resident memory: after a warm-up pass, memory must level off, not keep growing.
 *
 * Env: BENCH_VERTICALS, BENCH_NODES_PER_VERTICAL (10 × 1000), BENCH_MEMORY_SECONDS (60),
 * BENCH_CONNECTIONS (64). Load comes from wrk when installed, else autocannon.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { buildContent } from "../build/index.ts";
import { bundleServer, freePort } from "../test/helpers/child-server.ts";
import { nodeId, writeCorpus } from "./corpus.ts";
import { HAS_WRK, issueKey, rotationScript, runWrk } from "./load-tools.ts";

const VERTICALS = Number(process.env.BENCH_VERTICALS ?? 10);
const PER_VERTICAL = Number(process.env.BENCH_NODES_PER_VERTICAL ?? 1000);
const MEMORY_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SAMPLE_SECONDS = 5;
const ADMIN = "bench-admin-secret-0123456789";
const REAL_CONTENT = fileURLToPath(new URL("../content/", import.meta.url));

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), "vkr-bench-startup-"));
  let server: ChildProcess | undefined;
  try {
    const contentDir = join(tmp, "content");
    writeCorpus(contentDir, REAL_CONTENT, { verticals: VERTICALS, nodesPerVertical: PER_VERTICAL });
    const built = await buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp });
    if (!built.ok) throw new Error("benchmark corpus failed to build");
    // Bundled inside the repo (.tmp/), so its external native packages resolve from node_modules.
    const bundle = bundleServer();

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const started = performance.now();
    server = spawn(process.execPath, [bundle], {
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        HOST: "127.0.0.1",
        DIST_DIR: join(tmp, "dist"),
        DATA_DIR: join(tmp, "data"),
        ADMIN_KEY: ADMIN,
        LOG_LEVEL: "warn",
        // The corpus's first vertical is fully open, and free reads are limited per client (120 a
        // minute by default): from one load generator they would be 429s, not retrievals.
        ANON_RATE_PER_MINUTE: String(1e9),
        RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 1e9, daily_standard: 1e9, daily_scale: 1e9, per_key_monthly: 1e9 }),
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    await _waitReady(`${url}/healthz`, server);
    const readyMs = performance.now() - started;
    const readyRss = _rssMb(server.pid!);

    const key = await issueKey(url, ADMIN, { vertical: "all", label: "bench-startup" });
    const paths = Array.from({ length: VERTICALS }, (_, v) => `bench-${String(v + 1).padStart(2, "0")}`).flatMap((slug) =>
      Array.from({ length: PER_VERTICAL }, (_, i) => `/api/demo?vertical=${slug}&node=${nodeId(slug, i + 1)}${i % 2 ? "&lean=true" : ""}`),
    );
    const first = await fetch(url + paths[0], { headers: { "x-service-key": key } });
    if (first.status !== 200) throw new Error(`first retrieval answered ${first.status}`);

    // Warm-up: every path once, so the cache is full before memory is watched.
    await _load(url, paths, key, 10);
    const samples: number[] = [_rssMb(server.pid!)];
    const loading = _load(url, paths, key, MEMORY_SECONDS);
    for (let t = SAMPLE_SECONDS; t <= MEMORY_SECONDS; t += SAMPLE_SECONDS) {
      await new Promise((r) => setTimeout(r, SAMPLE_SECONDS * 1000));
      samples.push(_rssMb(server.pid!));
    }
    const served = await loading;
    const firstHalf = samples.slice(0, Math.ceil(samples.length / 2));
    const secondHalf = samples.slice(Math.ceil(samples.length / 2));

    process.stdout.write(
      `\nstartup: ${built.stats.nodes} nodes in ${built.stats.verticals} verticals; node ${process.version}; load ${HAS_WRK ? "wrk" : "autocannon"}, ${CONNECTIONS} connections\n`,
    );
    process.stdout.write(`ready (process start to first /healthz 200): ${Math.round(readyMs)} ms   (goal ≤ 2000 ms)\n`);
    process.stdout.write(`resident memory when ready:               ${readyRss.toFixed(0)} MB   (goal ≤ 300 MB)\n`);
    process.stdout.write(
      `${MEMORY_SECONDS} s of metered retrievals over all ${paths.length} nodes: ${served.requests} requests (${Math.round(served.requests / MEMORY_SECONDS)} req/s), ${served.errors} errors\n`,
    );
    process.stdout.write(`resident memory every ${SAMPLE_SECONDS} s (MB): ${samples.map((s) => s.toFixed(0)).join(" ")}\n`);
    process.stdout.write(
      `max of first half ${Math.max(...firstHalf).toFixed(0)} MB, max of second half ${Math.max(...secondHalf).toFixed(0)} MB, peak ${Math.max(...samples).toFixed(0)} MB\n`,
    );
  } finally {
    server?.kill("SIGTERM");
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function _waitReady(url: string, proc: ChildProcess): Promise<void> {
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resident set size of a process in MB (Linux /proc), NaN elsewhere. */
function _rssMb(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Drives GETs over `paths` in turn for `seconds`; returns the requests served and the errors. */
async function _load(url: string, paths: string[], key: string, seconds: number): Promise<{ requests: number; errors: number }> {
  if (!HAS_WRK) {
    let i = 0;
    const r = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: seconds,
      headers: { "x-service-key": key },
      requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]! }) }],
    });
    return { requests: r.requests.total, errors: r.errors + r.non2xx };
  }
  // Not awaited by the sampler: memory samples keep being taken while wrk runs.
  const out = await runWrk([
    "-t1",
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    "-H",
    `x-service-key: ${key}`,
    "-s",
    rotationScript(paths, `return wrk.format("GET", v)`),
    url,
  ]);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return { requests, errors };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:startup failed: ${String(error)}\n`);
  process.exit(1);
});
