/**
 * `npm run bench:soak`: memory that stays flat. The service on the 10,000-node synthetic corpus
 * (bench/corpus-server.ts, SQLite store), 10,000 keys issued through the admin route, and metered
 * reads for SOAK_SECONDS (600) with a node and a key picked at random for each request, so every
 * node's bytes (71 MB, within the artifact cache) and every key's record, digest and counter row
 * stay in use. Resident memory (/proc) and the V8 heap (the service's own /metrics) are sampled
 * every 5 s; the judged figure is the peak resident memory of the last third of the samples
 * against the first third's, target ≤ 1.05.
 *
 * Env: SOAK_SECONDS (600), SOAK_KEYS (10,000), SOAK_WARMUP_SECONDS (10, not sampled),
 * SOAK_NODE_ARGS (node flags for the server, e.g. `--heapsnapshot-signal=SIGUSR2
 * --diagnostic-dir=<folder>` to take heap snapshots while it runs), BENCH_VERTICALS and
 * BENCH_NODES_PER_VERTICAL (10 × 1000), BENCH_CONNECTIONS (64), BENCH_CORPUS_DIR (the built corpus
 * kept for the next run). Load comes from wrk when installed, else autocannon.
 */
import autocannon from "autocannon";
import { rssMb, startCorpusServer } from "./corpus-server.ts";
import { HAS_WRK, issueKeys, randomPairScript, runWrk, wrkCounts } from "./load-tools.ts";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const KEYS = Number(process.env.SOAK_KEYS ?? 10_000);
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? 10);
const NODE_ARGS = (process.env.SOAK_NODE_ARGS ?? "").split(" ").filter(Boolean);
const VERTICALS = Number(process.env.BENCH_VERTICALS ?? 10);
const PER_VERTICAL = Number(process.env.BENCH_NODES_PER_VERTICAL ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const SAMPLE_SECONDS = 5;
const TARGET = 1.05;
const ADMIN = "bench-admin-secret-0123456789";

interface Sample {
  /** Seconds since the measured load began. */
  t: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  /** Of the heap used, the old generation's: what survived young collections and only a major one frees. */
  oldSpace: number;
  external: number;
  /** Major (mark-compact) collections since the server started. */
  majorGcs: number;
}

async function main(): Promise<void> {
  const service = await startCorpusServer({ verticals: VERTICALS, nodesPerVertical: PER_VERTICAL, admin: ADMIN, nodeArgs: NODE_ARGS });
  try {
    const { url, paths, proc } = service;
    const keys = await issueKeys(url, ADMIN, { vertical: "all", label: "bench-soak" }, KEYS);
    const first = await fetch(url + paths[0], { headers: { "x-service-key": keys[0]! } });
    if (first.status !== 200) throw new Error(`first retrieval answered ${first.status}`);
    process.stdout.write(
      `\nsoak: ${service.stats.nodes} nodes, ${keys.length} keys, metered reads at random for ${SECONDS} s; node ${process.version}; load ${HAS_WRK ? "wrk" : "autocannon"}, ${CONNECTIONS} connections\n`,
    );
    if (WARMUP_SECONDS > 0) await _load(url, paths, keys, WARMUP_SECONDS);

    const sample = async (t: number): Promise<Sample> => ({ t, rss: rssMb(proc.pid!), ...(await _heapMb(url)) });
    const samples: Sample[] = [await sample(0)];
    const started = Date.now();
    const loading = _load(url, paths, keys, SECONDS);
    for (let t = SAMPLE_SECONDS; t <= SECONDS; t += SAMPLE_SECONDS) {
      await new Promise((r) => setTimeout(r, started + t * 1000 - Date.now()));
      const s = await sample(t);
      samples.push(s);
      process.stdout.write(
        `  ${String(t).padStart(4)} s  rss ${s.rss.toFixed(0)} MB  heap used ${s.heapUsed.toFixed(0)} of ${s.heapTotal.toFixed(0)} MB (old space ${s.oldSpace.toFixed(0)})  external ${s.external.toFixed(0)} MB  major GCs ${s.majorGcs}\n`,
      );
    }
    const served = await loading;

    const third = Math.floor(samples.length / 3);
    const peak = (list: Sample[], of: (s: Sample) => number) => Math.max(...list.map(of));
    const firstThird = samples.slice(0, third);
    const lastThird = samples.slice(samples.length - third);
    const rssFirst = peak(firstThird, (s) => s.rss);
    const rssLast = peak(lastThird, (s) => s.rss);
    const heapFirst = peak(firstThird, (s) => s.heapUsed);
    const heapLast = peak(lastThird, (s) => s.heapUsed);
    const ratio = rssLast / rssFirst;
    process.stdout.write(
      `${served.requests} requests (${Math.round(served.requests / SECONDS)} req/s), ${served.errors} errors\n` +
        `resident memory every ${SAMPLE_SECONDS} s (MB): ${samples.map((s) => s.rss.toFixed(0)).join(" ")}\n` +
        `heap used every ${SAMPLE_SECONDS} s (MB):       ${samples.map((s) => s.heapUsed.toFixed(0)).join(" ")}\n` +
        `peak resident memory: first third ${rssFirst.toFixed(0)} MB, last third ${rssLast.toFixed(0)} MB; peak heap used ${heapFirst.toFixed(0)} → ${heapLast.toFixed(0)} MB\n` +
        `last third ÷ first third (resident peak): ${ratio.toFixed(3)}   (target ≤ ${TARGET})   ${ratio <= TARGET ? "PASS" : "FAIL"}\n`,
    );
    if (!(ratio <= TARGET)) process.exitCode = 1;
  } finally {
    service.stop();
  }
}

/** The server's V8 heap and external memory in MB and its major collections, from the default metrics of its /metrics. */
async function _heapMb(url: string): Promise<Omit<Sample, "t" | "rss">> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? Number.NaN) / 2 ** 20;
  return {
    heapUsed: read("nodejs_heap_size_used_bytes"),
    heapTotal: read("nodejs_heap_size_total_bytes"),
    oldSpace: read('nodejs_heap_space_size_used_bytes\\{space="old"\\}'),
    external: read("nodejs_external_memory_bytes"),
    majorGcs: Number(/^nodejs_gc_duration_seconds_count\{kind="major"\} (\S+)/m.exec(text)?.[1] ?? 0),
  };
}

/** Metered GETs, each of a node and with a key picked at random, for `seconds`; the requests served and the errors. */
async function _load(url: string, paths: string[], keys: string[], seconds: number): Promise<{ requests: number; errors: number }> {
  if (!HAS_WRK) {
    const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
    const r = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: seconds,
      requests: [{ setupRequest: (req) => ({ ...req, path: pick(paths), headers: { "x-service-key": pick(keys) } }) }],
    });
    return { requests: r.requests.total, errors: r.errors + r.non2xx };
  }
  const out = await runWrk([
    "-t1",
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    "-s",
    randomPairScript(paths, keys, `wrk.headers["x-service-key"] = b\n  return wrk.format("GET", a)`),
    url,
  ]);
  const { requests, non2xx } = wrkCounts(out);
  return { requests, errors: non2xx };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:soak failed: ${String(error)}\n`);
  process.exit(1);
});
