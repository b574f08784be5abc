/**
 * `npm run bench:startup` (also the second half of `npm run bench`): the service on a large build.
 * Generates the 10,000-node synthetic corpus (bench/corpus.ts), builds it, starts the production
 * bundle on it and reports the time until it answers and its resident memory. Then it drives
 * metered retrievals spread over every node (so the artifact cache fills) and samples resident
 * memory: after a warm-up pass, memory must level off, not keep growing (`bench/soak.ts` watches it
 * for ten minutes).
 *
 * Env: BENCH_VERTICALS, BENCH_NODES_PER_VERTICAL (10 × 1000), BENCH_MEMORY_SECONDS (60),
 * BENCH_CONNECTIONS (64), BENCH_CORPUS_DIR (where the built corpus is kept for the next run; a
 * temporary folder by default). Load comes from wrk when installed, else autocannon.
 */
import autocannon from "autocannon";
import { rssMb, startCorpusServer } from "./corpus-server.ts";
import { HAS_WRK, issueKey, rotationScript, runWrk, wrkCounts } from "./load-tools.ts";

const VERTICALS = Number(process.env.BENCH_VERTICALS ?? 10);
const PER_VERTICAL = Number(process.env.BENCH_NODES_PER_VERTICAL ?? 1000);
const MEMORY_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SAMPLE_SECONDS = 5;
const ADMIN = "bench-admin-secret-0123456789";

async function main(): Promise<void> {
  const service = await startCorpusServer({ verticals: VERTICALS, nodesPerVertical: PER_VERTICAL, admin: ADMIN });
  try {
    const { url, paths, proc: server } = service;
    const readyRss = rssMb(server.pid!);

    const key = await issueKey(url, ADMIN, { vertical: "all", label: "bench-startup" });
    const first = await fetch(url + paths[0], { headers: { "x-service-key": key } });
    if (first.status !== 200) throw new Error(`first retrieval answered ${first.status}`);

    // Warm-up: every path once, so the cache is full before memory is watched.
    await _load(url, paths, key, 10);
    const samples: number[] = [rssMb(server.pid!)];
    const loading = _load(url, paths, key, MEMORY_SECONDS);
    for (let t = SAMPLE_SECONDS; t <= MEMORY_SECONDS; t += SAMPLE_SECONDS) {
      await new Promise((r) => setTimeout(r, SAMPLE_SECONDS * 1000));
      samples.push(rssMb(server.pid!));
    }
    const served = await loading;
    const firstHalf = samples.slice(0, Math.ceil(samples.length / 2));
    const secondHalf = samples.slice(Math.ceil(samples.length / 2));

    process.stdout.write(
      `\nstartup: ${service.stats.nodes} nodes in ${service.stats.verticals} verticals; node ${process.version}; load ${HAS_WRK ? "wrk" : "autocannon"}, ${CONNECTIONS} connections\n`,
    );
    process.stdout.write(`ready (process start to first /healthz 200): ${Math.round(service.readyMs)} ms   (goal ≤ 2000 ms)\n`);
    process.stdout.write(`resident memory when ready:               ${readyRss.toFixed(0)} MB   (goal ≤ 300 MB)\n`);
    process.stdout.write(
      `${MEMORY_SECONDS} s of metered retrievals over all ${paths.length} nodes: ${served.requests} requests (${Math.round(served.requests / MEMORY_SECONDS)} req/s), ${served.errors} errors\n`,
    );
    process.stdout.write(`resident memory every ${SAMPLE_SECONDS} s (MB): ${samples.map((s) => s.toFixed(0)).join(" ")}\n`);
    process.stdout.write(
      `max of first half ${Math.max(...firstHalf).toFixed(0)} MB, max of second half ${Math.max(...secondHalf).toFixed(0)} MB, peak ${Math.max(...samples).toFixed(0)} MB\n`,
    );
  } finally {
    service.stop();
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
  const { requests, non2xx } = wrkCounts(out);
  return { requests, errors: non2xx };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:startup failed: ${String(error)}\n`);
  process.exit(1);
});
