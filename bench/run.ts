/**
 * `npm run bench`: throughput and latency of the metering runtime next to a bare node:http server
 * serving the same bytes, measured in the same run with interleaved repetitions (A B A B …), and
 * printed as ratios — absolute figures on a shared machine mean little.
 *
 * The service runs from its production bundle with limits raised through RETRIEVAL_LIMITS, so no
 * request is denied while the counters still do all their work. Server and load generator are
 * pinned to different cores when `taskset` exists. Load: wrk when installed (Debian's `wrk`: a C
 * generator that outruns one Node server), autocannon otherwise — autocannon is itself a Node
 * process and saturates near the bare baseline, which flattens every ratio towards 1.
 * Besides req/s, the CPU time each server process spent per request (from /proc) is reported:
 * it measures the server's own cost whatever the generator can push.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { deletePrefix, uniquePrefix } from "../test/cluster/_cluster.ts";
import { freePort } from "../test/helpers/child-server.ts";
import { startRedisCluster } from "../test/helpers/redis-topology.ts";
import { agentNetworkEnv, startAgentNetwork } from "../test/payments/stand-ins/agent-network.ts";
import {
  benchServiceEnv,
  type CycleRequest,
  HAS_TASKSET,
  HAS_WRK,
  issueKey,
  issueKeys,
  requestCycleScript,
  rotationScript,
  runWrk,
  spawnServer,
  waitReady,
  wrkCounts,
} from "./load-tools.ts";
import { copyStore, MILLION, type MillionKeyStore, millionKeyStore, randomKeyScript, readKeys, sampleRss } from "./million-keys.ts";
import { getNodeCall, MCP_HEADERS, mixedCycle } from "./mixed-cycle.ts";
import { CLOCK_TICKS, cpuTicks, median } from "./process-cpu.ts";

// BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_ONLY (a pattern of scenario names), BENCH_REDIS_URL,
// BENCH_PAIRS and BENCH_PAIR_SECONDS (the paired estimates of the judged ratios; 0 pairs skips them),
// BENCH_MILLION_KEYS (the keys of the many-keys row, 1,000,000; 0 skips the row; bench/million-keys.ts).
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 16);
const PAIR_SECONDS = Number(process.env.BENCH_PAIR_SECONDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const ADMIN = "bench-admin-secret-0123456789";

interface Scenario {
  name: string;
  /** The server process answering, for CPU accounting. */
  pid: number;
  url: string;
  headers: Record<string, string>;
  /** POST with this body (MCP); GET when absent. */
  body?: string;
  /** Service keys sent in turn, one per request (X-Service-Key), instead of one fixed key. */
  rotateKeys?: string[];
  /** A fixed cycle of different requests (mixed traffic) instead of one request. */
  cycle?: CycleRequest[];
  /** Service keys picked at random from this file (one a line), one per request: too many to hold in a script. */
  keyFile?: string;
  /** The Redis this scenario's server uses, to count the commands it sends per request. */
  redisUrl?: string;
}
interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU microseconds per request, or NaN where /proc is unavailable. */
  cpuUs: number;
  /** Redis commands per request, or NaN when the scenario does not use Redis. */
  redisCmds: number;
  /** Response bytes per request (headers included), or NaN when the generator does not say. */
  bytes: number;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["--import", "tsx", "build/cli.ts"], { stdio: "inherit" });
  execFileSync(process.execPath, ["--import", "tsx", "build/bundle-server.ts"], { stdio: "inherit" });
  const node = "eu261-compensation";
  const artifact = join("dist/data/verticals/travel/nodes", `${node}.json`);
  // Built once and reused (minutes the first time), before any server competes with it.
  const million = MILLION > 0 ? await millionKeyStore() : null;

  const basePort = await freePort();
  const base = await _spawn(["bench/baseline-server.mjs", artifact, String(basePort)], {}, `http://127.0.0.1:${basePort}/`);
  const floorPort = await freePort();
  const floorUrl = `http://127.0.0.1:${floorPort}/api/demo?vertical=travel&node=${node}`;
  const floor = await _spawn(["bench/h3-floor-server.mjs", artifact, String(floorPort)], {}, floorUrl);
  // The bare baseline plus the quota write every metered request makes (bench/durable-floor-server.ts).
  const durablePort = await freePort();
  const durable = await _spawn(
    ["--import", "tsx", "bench/durable-floor-server.ts", artifact, String(durablePort)],
    {},
    `http://127.0.0.1:${durablePort}/`,
  );
  mkdirSync(".tmp", { recursive: true });
  // The payment network's stand-in (JWKS and the charge API, real HTTP), for per-use tokens; a
  // real network answers a charge in tens of milliseconds, which is what per-use requests wait on.
  const network = await startAgentNetwork({ chargeLatencyMs: [20, 50] });
  const svcPort = await freePort();
  const svc = await _spawn(
    ["dist/server/index.mjs"],
    { ...benchServiceEnv(svcPort, ADMIN), ...agentNetworkEnv(network) },
    `http://127.0.0.1:${svcPort}/healthz`,
  );
  // The same bundle with each per-use charge awaited inside its retrieval (the default before batching).
  const batchedPort = await freePort();
  const batchedSvc = await _spawn(
    ["dist/server/index.mjs"],
    {
      PORT: String(batchedPort),
      DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-bench-")),
      LOG_LEVEL: "warn",
      PER_USE_CHARGE_BATCH_MS: "0",
      ...agentNetworkEnv(network),
    },
    `http://127.0.0.1:${batchedPort}/healthz`,
  );
  // The same bundle in multi-instance mode: state on Redis under a throwaway prefix. Without
  // BENCH_REDIS_URL a private redis-server is started (on the generator's core, as a Redis on
  // another host would not compete with the service), so its command count is this bench's alone.
  const ownRedis = process.env.BENCH_REDIS_URL ? null : await _startRedis();
  const redisUrl = process.env.BENCH_REDIS_URL ?? ownRedis?.url ?? "redis://127.0.0.1:6379";
  const redisPrefix = uniquePrefix().replace("vkr-test:", "vkr-bench:");
  const redisPort = await freePort();
  const redisSvc = await _spawn(
    ["dist/server/index.mjs"],
    { ...benchServiceEnv(redisPort, ADMIN), REDIS_URL: redisUrl, REDIS_PREFIX: redisPrefix },
    `http://127.0.0.1:${redisPort}/healthz`,
  );
  // The same on a Redis Cluster of three primaries and three replicas (its own, on free ports).
  const redisCluster = await startRedisCluster();
  const clusterPort = await freePort();
  const clusterSvc = await _spawn(
    ["dist/server/index.mjs"],
    { ...benchServiceEnv(clusterPort, ADMIN), REDIS_URL: redisCluster.url, REDIS_PREFIX: redisPrefix },
    `http://127.0.0.1:${clusterPort}/healthz`,
  );
  let shapes: ChildProcess | undefined;
  let contract: ChildProcess | undefined;
  try {
    const svcUrl = `http://127.0.0.1:${svcPort}`;
    const redisSvcUrl = `http://127.0.0.1:${redisPort}`;
    const travelKey = { vertical: "travel", label: "bench" };
    const redisKey = await issueKey(redisSvcUrl, ADMIN, travelKey);
    const clusterSvcUrl = `http://127.0.0.1:${clusterPort}`;
    const clusterKey = await issueKey(clusterSvcUrl, ADMIN, travelKey);
    const key = await issueKey(svcUrl, ADMIN, travelKey);
    // Many agents at once: every request a different key, so no two share counters in a batch.
    const manyKeys = await Promise.all(Array.from({ length: 256 }, () => issueKey(svcUrl, ADMIN, travelKey)));
    // Production-sized: 10,000 keys, so a key comes back only after ~10,000 other requests.
    const tenThousandKeys = await issueKeys(svcUrl, ADMIN, travelKey, 10_000);
    const mixed = mixedCycle(tenThousandKeys.slice(0, 1000), await _travelNodes(svcUrl));
    await _checkCycle(svcUrl, mixed);
    // Worth $1M: at $0.002 a node it outlasts any run.
    const payToken = await network.mint({ valueMicros: 1e12 });
    const batchedToken = await network.mint({ valueMicros: 1e12 });
    const scenarios: Scenario[] = [
      { name: BARE, pid: base.pid!, url: `http://127.0.0.1:${basePort}/`, headers: {} },
      { name: FRAMEWORK, pid: floor.pid!, url: floorUrl, headers: {} },
      { name: DURABLE[0], pid: durable.pid!, url: `http://127.0.0.1:${durablePort}/`, headers: { "x-service-key": key } },
      { name: DURABLE[1], pid: durable.pid!, url: `http://127.0.0.1:${durablePort}/`, headers: {}, rotateKeys: manyKeys },
      { name: DURABLE[2], pid: durable.pid!, url: `http://127.0.0.1:${durablePort}/`, headers: {}, rotateKeys: tenThousandKeys },
      { name: METERED[0], pid: svc.pid!, url: `${svcUrl}/api/demo?vertical=travel&node=${node}`, headers: { "x-service-key": key } },
      { name: METERED[1], pid: svc.pid!, url: `${svcUrl}/api/demo?vertical=travel&node=${node}`, headers: {}, rotateKeys: manyKeys },
      { name: METERED[2], pid: svc.pid!, url: `${svcUrl}/api/demo?vertical=travel&node=${node}`, headers: {}, rotateKeys: tenThousandKeys },
      {
        name: "per-use pay token, default (charge 20–50 ms)",
        pid: svc.pid!,
        url: `${svcUrl}/api/demo?vertical=travel&node=${node}`,
        headers: { "pay-network-pay-id": payToken },
      },
      {
        name: "per-use pay token, each charge awaited (PER_USE_CHARGE_BATCH_MS=0)",
        pid: batchedSvc.pid!,
        url: `http://127.0.0.1:${batchedPort}/api/demo?vertical=travel&node=${node}`,
        headers: { "pay-network-pay-id": batchedToken },
      },
      {
        name: "metered full node (membership key, Redis store)",
        pid: redisSvc.pid!,
        url: `${redisSvcUrl}/api/demo?vertical=travel&node=${node}`,
        headers: { "x-service-key": redisKey },
        redisUrl,
      },
      {
        name: "metered full node (membership key, Redis Cluster store)",
        pid: clusterSvc.pid!,
        url: `${clusterSvcUrl}/api/demo?vertical=travel&node=${node}`,
        headers: { "x-service-key": clusterKey },
        redisUrl: redisCluster.url,
      },
      { name: SVC_MCP, pid: svc.pid!, url: `${svcUrl}/mcp`, headers: { ...MCP_HEADERS, "x-service-key": key }, body: getNodeCall(node) },
      // What the SDK's fetch (and Python's httpx) send by default: the answer comes deflated.
      {
        name: "MCP get_node, Accept-Encoding: gzip, deflate (as fetch sends)",
        pid: svc.pid!,
        url: `${svcUrl}/mcp`,
        headers: { ...MCP_HEADERS, "x-service-key": key, "accept-encoding": "gzip, deflate" },
        body: getNodeCall(node),
      },
      {
        name: SVC_REST_LEAN,
        pid: svc.pid!,
        url: `${svcUrl}/api/demo?vertical=travel&node=${node}&lean=true`,
        headers: { "x-service-key": key },
      },
      { name: "anonymous index (travel)", pid: svc.pid!, url: `${svcUrl}/api/demo?vertical=travel`, headers: {} },
      { name: MIXED, pid: svc.pid!, url: svcUrl, headers: {}, cycle: mixed },
    ];
    await _checkMcp(`${svcUrl}/mcp`, key, node);
    // The two shapes served bare: REST lean's bytes to a GET, and the service's own get_node answer
    // to a POST whose body is read and parsed; their ratio is the ceiling for MCP ÷ REST lean.
    const leanFile = join(".tmp", "bench-lean.json");
    const mcpFile = join(".tmp", "bench-mcp-answer.json");
    writeFileSync(
      leanFile,
      Buffer.from(
        await (
          await fetch(`${svcUrl}/api/demo?vertical=travel&node=${node}&lean=true`, { headers: { "x-service-key": key } })
        ).arrayBuffer(),
      ),
    );
    writeFileSync(
      mcpFile,
      Buffer.from(
        await (
          await fetch(`${svcUrl}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, "x-service-key": key }, body: getNodeCall(node) })
        ).arrayBuffer(),
      ),
    );
    // The contract floor: h3, the quota write and this very answer's headers (bench/contract-floor-server.ts).
    const answer = await fetch(`${svcUrl}/api/demo?vertical=travel&node=${node}`, { headers: { "x-service-key": key } });
    await answer.arrayBuffer();
    const contractHeaders = join(".tmp", "bench-contract-headers.json");
    const answerHeaders: Array<[string, string]> = [];
    answer.headers.forEach((value, name) => void (HOP_HEADERS.has(name) || answerHeaders.push([name, value])));
    writeFileSync(contractHeaders, JSON.stringify(answerHeaders));
    const contractPort = await freePort();
    contract = await _spawn(
      ["--import", "tsx", "bench/contract-floor-server.ts", artifact, String(contractPort), contractHeaders],
      {},
      `http://127.0.0.1:${contractPort}/api/demo`,
    );
    scenarios.splice(
      scenarios.findIndex((s) => s.name === METERED[0]),
      0,
      {
        name: CONTRACT,
        pid: contract.pid!,
        url: `http://127.0.0.1:${contractPort}/api/demo`,
        headers: { "x-service-key": key },
      },
      {
        name: CONTRACT_10K,
        pid: contract.pid!,
        url: `http://127.0.0.1:${contractPort}/api/demo`,
        headers: {},
        rotateKeys: tenThousandKeys,
      },
    );
    const shapesPort = await freePort();
    shapes = await _spawn(["bench/baseline-server.mjs", leanFile, String(shapesPort), mcpFile], {}, `http://127.0.0.1:${shapesPort}/`);
    scenarios.push(
      { name: SHAPE_REST_LEAN, pid: shapes.pid!, url: `http://127.0.0.1:${shapesPort}/`, headers: {} },
      {
        name: SHAPE_MCP,
        pid: shapes.pid!,
        url: `http://127.0.0.1:${shapesPort}/`,
        headers: { "content-type": "application/json" },
        body: getNodeCall(node),
      },
    );
    // BENCH_ONLY: a pattern of scenario names to run (the baseline always runs), for one change at a time.
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY, "i") : null;
    const oneKey = scenarios.find((s) => s.name === METERED[0])!;
    if (only) scenarios.splice(1, scenarios.length, ...scenarios.slice(1).filter((s) => only.test(s.name)));
    const results = new Map<string, Result[]>(scenarios.map((s) => [s.name, []]));
    // Warm-up: JIT and caches. A row of keys in turn warms until every key was sent at least once
    // (at a few thousand requests a second): a key's first request reads its record and counter
    // row from the store, and with 10,000 keys a 1 s warm-up left that into the first measured round.
    for (const s of scenarios) await _load(s, Math.max(1, Math.ceil((s.rotateKeys?.length ?? 0) / 2500)));
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of scenarios) results.get(s.name)!.push(await _load(s, DURATION));
    }
    const usage = await (await fetch(`${svcUrl}/api/keys`, { headers: { "x-service-key": key } })).json();
    _print(scenarios, results, (usage as { usage: { hour: number } }).usage.hour);
    for (const line of await _pairedRatios(scenarios)) process.stdout.write(line + "\n");
    if (million && (!only || only.test(MILLION_ROW))) {
      for (const line of await _millionRow(million, oneKey, node)) process.stdout.write(line + "\n");
    }
    const redisUsage = (await (await fetch(`${redisSvcUrl}/api/keys`, { headers: { "x-service-key": redisKey } })).json()) as {
      usage: { hour: number };
    };
    process.stdout.write(
      `metered calls counted in the Redis key's hour window: ${redisUsage.usage.hour} (Redis at ${redisUrl.replace(/\/\/[^@]*@/, "//")}, not pinned)\n`,
    );
  } finally {
    base.kill("SIGTERM");
    floor.kill("SIGTERM");
    durable.kill("SIGTERM");
    batchedSvc.kill("SIGTERM");
    svc.kill("SIGTERM");
    redisSvc.kill("SIGTERM");
    clusterSvc.kill("SIGTERM");
    await redisCluster.stop();
    await network.close();
    await deletePrefix(redisUrl, redisPrefix).catch(() => {});
    ownRedis?.proc.kill("SIGTERM");
    shapes?.kill("SIGTERM");
    contract?.kill("SIGTERM");
  }
}

const BARE = "baseline node:http (same bytes)";
const FRAMEWORK = "h3 v2 route, same bytes, no checks (framework floor)";
// One key, 256 keys in turn, 10,000 keys in turn: the service and the durable floor under the same requests.
const METERED = [
  "metered full node (membership key)",
  "metered full node, 256 keys in turn (membership)",
  "metered full node, 10,000 keys in turn (membership)",
] as const;
const DURABLE = [
  "bare node:http + the quota write, one key (durable floor)",
  "bare node:http + the quota write, 256 keys in turn (durable floor)",
  "bare node:http + the quota write, 10,000 keys in turn (durable floor)",
] as const;
const CONTRACT = "h3 v2 route + the quota write + the service's own response headers, one key (contract floor)";
const CONTRACT_10K = "h3 v2 route + the quota write + the service's own response headers, 10,000 keys in turn (contract floor)";
/** Headers of a live answer the contract floor does not replay: its server sets them itself. */
const HOP_HEADERS = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);
const SHAPE_REST_LEAN = "bare node:http, REST lean's bytes to a GET (shape only)";
const SHAPE_MCP = "bare node:http, the get_node answer to a POST it reads (shape only)";
const SVC_REST_LEAN = "metered lean node (membership key)";
const MIXED = "mixed: 1,000 keys; 80% node full+lean, 10% index, 5% evaluate, 5% MCP";
const SVC_MCP = "metered full node over MCP tools/call get_node (membership key)";
const MILLION_ROW = `metered full node, ${MILLION.toLocaleString("en")} issued keys at random (SQLite store)`;
/** Targets of the many-keys row (docs/performance.md). */
const MILLION_TARGETS = { ratio: 1.25, rssMb: 400, restartS: 2 };

/**
 * The many-keys row: a server on a copy of the store holding a million issued keys
 * (bench/million-keys.ts), metered reads with a key picked at random each; its CPU per request
 * paired with the one-key row, its resident memory sampled from its first moment to its end, and
 * the time a restart takes (SIGKILL, as a crash, then a start on the same store) until a metered
 * read with one of those keys answers 200. Runs after the other rows, alone with them idle.
 */
async function _millionRow(store: MillionKeyStore, oneKey: Scenario, node: string): Promise<string[]> {
  const port = await freePort();
  const dataDir = copyStore(store);
  const env = { ...benchServiceEnv(port, ADMIN), DATA_DIR: dataDir };
  const url = `http://127.0.0.1:${port}/api/demo?vertical=travel&node=${node}`;
  const probeKey = _anyOf(readKeys(store.keysFile));
  let rss: ReturnType<typeof sampleRss> | undefined;
  let first: ChildProcess | undefined = await _spawn(["dist/server/index.mjs"], env, `http://127.0.0.1:${port}/healthz`, (p) => {
    rss = sampleRss(p.pid!);
  });
  const row: Scenario = { name: MILLION_ROW, pid: first.pid!, url, headers: {}, keyFile: store.keysFile };
  const runs: Result[] = [];
  const ratios: number[] = [];
  let restartMs = Number.NaN;
  let restartedPeak = 0;
  let fold = { seconds: Number.NaN, cpuSeconds: Number.NaN };
  let foldPeak = Number.NaN;
  try {
    // A store never folded: the start folds yesterday's usage over every key (usage-history.ts),
    // once a day; measured apart, as it is no request's cost.
    fold = await _untilIdle(first.pid!);
    foldPeak = rss!.peak();
    // Warm-up: the JIT and the caches' steady state (a million keys never all fit: most reads miss).
    await _load(oneKey, 1);
    await _load(row, 5);
    for (let pair = 0; pair < Math.max(PAIRS, 1); pair++) {
      const order = pair % 2 === 0 ? [row, oneKey] : [oneKey, row];
      const cpu = new Map<Scenario, number>();
      for (const s of order) {
        const r = await _load(s, PAIR_SECONDS);
        if (s === row) runs.push(r);
        cpu.set(s, r.cpuUs);
      }
      ratios.push(cpu.get(row)! / cpu.get(oneKey)!);
    }
    first.kill("SIGKILL");
    await new Promise((r) => first!.once("exit", r));
    first = undefined;
    const restarted = await _startUntilRead(env, url, probeKey);
    const again = sampleRss(restarted.proc.pid!);
    restartMs = restarted.ms;
    try {
      await _load({ ...row, pid: restarted.proc.pid! }, PAIR_SECONDS);
    } finally {
      restarted.proc.kill("SIGTERM");
      if (restarted.proc.exitCode === null) await new Promise((r) => restarted.proc.once("exit", r));
      restartedPeak = again.stop();
    }
  } finally {
    first?.kill("SIGKILL");
    // A gigabyte a run: not left behind.
    rmSync(dataDir, { recursive: true, force: true });
  }
  const peak = Math.max(rss!.stop(), restartedPeak);
  ratios.sort((x, y) => x - y);
  const q = (f: number) => ratios[Math.min(ratios.length - 1, Math.floor(f * ratios.length))]!.toFixed(2);
  const ratio = median(ratios);
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const errors = runs.reduce((n, r) => n + r.errors, 0);
  return [
    `${MILLION_ROW}: ${median(runs.map((r) => r.rps)).toFixed(0)} req/s, p50 ${median(runs.map((r) => r.p50)).toFixed(2)} ms, p99 ${median(runs.map((r) => r.p99)).toFixed(2)} ms, CPU ${median(runs.map((r) => r.cpuUs)).toFixed(1)} µs/req, errors ${errors}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")}`,
    `  CPU per request, ${MILLION.toLocaleString("en")} keys at random ÷ one key: ${ratio.toFixed(2)} (interquartile ${q(0.25)}–${q(0.75)}, ${ratios.length} pairs of ${PAIR_SECONDS} s) (target ≤ ${MILLION_TARGETS.ratio}) ${verdict(ratio <= MILLION_TARGETS.ratio && errors === 0)}`,
    `  the start's usage fold over every key, before the row (the server busy until then): ${fold.seconds.toFixed(1)} s, ${fold.cpuSeconds.toFixed(1)} s of CPU, peak resident memory until then ${foldPeak.toFixed(0)} MB`,
    `  server's peak resident memory, sampled every 0.1 s from start to stop, restart included: ${peak.toFixed(0)} MB (target ≤ ${MILLION_TARGETS.rssMb} MB) ${verdict(peak <= MILLION_TARGETS.rssMb)}`,
    `  restart (SIGKILL, then a start on the same store) until a metered read with one of the keys answers 200: ${(restartMs / 1000).toFixed(2)} s (target ≤ ${MILLION_TARGETS.restartS} s) ${verdict(restartMs <= MILLION_TARGETS.restartS * 1000)}`,
  ];
}

function _anyOf<T>(values: T[]): T {
  return values[Math.floor(Math.random() * values.length)]!;
}

/** Waits until the process uses under 5 % of a core over a second (at most 5 minutes); how long that took and the CPU it used. */
async function _untilIdle(pid: number): Promise<{ seconds: number; cpuSeconds: number }> {
  const started = performance.now();
  const ticksAtStart = cpuTicks(pid);
  for (let i = 0; i < 300; i++) {
    const before = cpuTicks(pid);
    await new Promise((r) => setTimeout(r, 1000));
    if (cpuTicks(pid) - before < 0.05 * CLOCK_TICKS) break;
  }
  return { seconds: (performance.now() - started) / 1000 - 1, cpuSeconds: (cpuTicks(pid) - ticksAtStart) / CLOCK_TICKS };
}

/** Starts the bundle (pinned like the others) and times it until a metered read with `key` answers 200. */
async function _startUntilRead(env: Record<string, string>, url: string, key: string): Promise<{ proc: ChildProcess; ms: number }> {
  const started = performance.now();
  const cmd = HAS_TASKSET ? "taskset" : process.execPath;
  const argv = HAS_TASKSET ? ["-c", "0", process.execPath, "dist/server/index.mjs"] : ["dist/server/index.mjs"];
  const proc = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] });
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the restarted server exited with ${proc.exitCode}`);
    const status = await fetch(url, { headers: { "x-service-key": key } }).then(
      async (r) => (await r.arrayBuffer(), r.status),
      () => 0,
    );
    if (status === 200) return { proc, ms: performance.now() - started };
    if (status !== 0) {
      proc.kill("SIGKILL");
      throw new Error(`a metered read after the restart answered ${status}`);
    }
    if (performance.now() - started > 60_000) {
      proc.kill("SIGKILL");
      throw new Error("the restarted server did not answer within 60 s");
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Nodes of the travel vertical, from its free index. */
async function _travelNodes(url: string): Promise<string[]> {
  const index = (await (await fetch(`${url}/api/demo?vertical=travel&lean=true`)).json()) as { nodes: Array<{ id: string }> };
  return index.nodes.map((n) => n.id);
}

/** Every request of the cycle answers 2xx (and MCP without isError) before it is measured. */
async function _checkCycle(url: string, cycle: CycleRequest[]): Promise<void> {
  for (const r of cycle.slice(0, 200)) {
    const res = await fetch(url + r.path, { method: r.method, headers: r.headers, ...(r.body ? { body: r.body } : {}) });
    const text = await res.text();
    if (res.status >= 300 || text.includes('"isError":true'))
      throw new Error(`mixed request ${r.method} ${r.path} answered ${res.status}: ${text.slice(0, 300)}`);
  }
}

async function _startRedis(): Promise<{ url: string; proc: ChildProcess } | null> {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
  } catch {
    return null;
  }
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const proc = spawn(HAS_TASKSET ? "taskset" : "redis-server", HAS_TASKSET ? ["-c", "1", "redis-server", ...args] : args, {
    stdio: "ignore",
  });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    client.on("error", () => {});
    const ok = await client.connect().then(
      () => true,
      () => false,
    );
    client.disconnect();
    if (ok) return { url, proc };
    await new Promise((r) => setTimeout(r, 50));
  }
  proc.kill("SIGTERM");
  return null;
}

/** Commands the Redis server has processed so far (all clients; the bench's own Redis has only ours). */
/** Commands Redis processed (inside scripts too), INFO's own calls left out; on a cluster the sum over its primaries. */
async function _redisCommands(url: string): Promise<number> {
  const cluster = /^redis\+cluster:\/\/(.+)$/.exec(url);
  const nodes = cluster ? cluster[1]!.split(",").map((hp) => `redis://${hp}`) : [url];
  let total = 0;
  for (const node of nodes) {
    const client = new Redis(node, { maxRetriesPerRequest: 1 });
    try {
      if (cluster && ((await client.role()) as unknown[])[0] !== "master") continue;
      const info = await client.info("all");
      const processed = Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
      const infoCalls = Number(/cmdstat_info:calls=(\d+)/.exec(info)?.[1] ?? 0);
      total += processed - infoCalls;
    } finally {
      client.disconnect();
    }
  }
  return total;
}

/** MCP answers tool failures with 200 + isError, which autocannon would count as success: check one call first. */
async function _checkMcp(url: string, key: string, node: string): Promise<void> {
  const res = await fetch(url, { method: "POST", headers: { ...MCP_HEADERS, "x-service-key": key }, body: getNodeCall(node) });
  const body = (await res.json()) as { result?: { isError?: boolean; structuredContent?: { node?: { locked_layers?: string[] } } } };
  if (res.status !== 200 || !body.result || body.result.isError || body.result.structuredContent?.node?.locked_layers?.length !== 0) {
    throw new Error(`MCP get_node does not return the unlocked node: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

/** `started` sees the process as soon as it exists (to sample it from its first moment). */
async function _spawn(
  args: string[],
  env: Record<string, string>,
  readyUrl: string,
  started?: (proc: ChildProcess) => void,
): Promise<ChildProcess> {
  const proc = spawnServer(args, env);
  started?.(proc);
  await waitReady(proc, readyUrl);
  return proc;
}

async function _load(s: Scenario, seconds: number): Promise<Result> {
  // Pin the generator to the other core; the servers run on core 0.
  if (HAS_TASKSET) execFileSync("taskset", ["-pc", "1", String(process.pid)], { stdio: "ignore" });
  const redisBefore = s.redisUrl ? await _redisCommands(s.redisUrl) : Number.NaN;
  const cpuBefore = cpuTicks(s.pid);
  const r = HAS_WRK ? await _wrk(s, seconds) : await _autocannon(s, seconds);
  const cpuAfter = cpuTicks(s.pid);
  const redisCmds = s.redisUrl && r.requests > 0 ? ((await _redisCommands(s.redisUrl)) - redisBefore) / r.requests : Number.NaN;
  const cpuUs = r.requests > 0 ? (((cpuAfter - cpuBefore) / CLOCK_TICKS) * 1e6) / r.requests : Number.NaN;
  return {
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    errors: r.errors,
    cpuUs,
    redisCmds,
    bytes: r.requests > 0 ? r.bytes / r.requests : Number.NaN,
  };
}

interface LoadRun {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** Bytes read in all, headers included. */
  bytes: number;
}

async function _autocannon(s: Scenario, seconds: number): Promise<LoadRun> {
  let turn = 0;
  const rotate = s.rotateKeys;
  const picked = s.keyFile ? readKeys(s.keyFile) : undefined;
  const cycle = s.cycle;
  const r = await autocannon({
    url: s.url,
    headers: s.headers,
    connections: CONNECTIONS,
    duration: seconds,
    pipelining: 1,
    ...(s.body ? { method: "POST" as const, body: s.body } : {}),
    ...(rotate
      ? {
          requests: [
            { setupRequest: (req) => ({ ...req, headers: { ...req.headers, "x-service-key": rotate[turn++ % rotate.length]! } }) },
          ],
        }
      : {}),
    ...(picked
      ? {
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                headers: { ...req.headers, "x-service-key": picked[Math.floor(Math.random() * picked.length)]! },
              }),
            },
          ],
        }
      : {}),
    ...(cycle
      ? {
          requests: [
            {
              setupRequest: (req) => {
                const c = cycle[turn++ % cycle.length]!;
                return { ...req, method: c.method as "GET", path: c.path, headers: { ...req.headers, ...c.headers }, body: c.body };
              },
            },
          ],
        }
      : {}),
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    requests: r.requests.total,
    bytes: r.throughput.total,
  };
}

async function _wrk(s: Scenario, seconds: number): Promise<LoadRun> {
  const args = ["-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(s.headers)) args.push("-H", `${k}: ${v}`);
  if (s.body) {
    const script = join(mkdtempSync(join(tmpdir(), "vkr-wrk-")), "post.lua");
    writeFileSync(script, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(s.body)}\n`);
    args.push("-s", script);
  } else if (s.keyFile) {
    args.push("-s", randomKeyScript(s.keyFile));
  } else if (s.rotateKeys) {
    args.push("-s", rotationScript(s.rotateKeys, `wrk.headers["x-service-key"] = v\n  return wrk.format()`));
  } else if (s.cycle) {
    args.push("-s", requestCycleScript(s.cycle));
  }
  args.push(s.url);
  const out = await runWrk(args, 1);
  const ms = (label: string) => {
    const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)`, "m").exec(out);
    if (!m) return Number.NaN;
    return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1);
  };
  const { requests, non2xx } = wrkCounts(out);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((n, v) => n + Number(v), 0) : 0;
  const read = /requests in [\d.]+\w+, ([\d.]+)(B|KB|MB|GB) read/.exec(out);
  const bytes = read
    ? Number(read[1]) * ({ B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 } as Record<string, number>)[read[2]!]!
    : Number.NaN;
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50: ms("50"),
    p99: ms("99"),
    errors: non2xx + socketErrors,
    requests,
    bytes,
  };
}

function _print(scenarios: Scenario[], results: Map<string, Result[]>, metered: number): void {
  const baseline = median(results.get(scenarios[0]!.name)!.map((r) => r.rps));
  const baselineCpu = median(results.get(scenarios[0]!.name)!.map((r) => r.cpuUs));
  const rows = scenarios.map((s) => {
    const rs = results.get(s.name)!;
    const rps = median(rs.map((r) => r.rps));
    const cpu = median(rs.map((r) => r.cpuUs));
    return [
      s.name,
      rps.toFixed(0),
      median(rs.map((r) => r.p50)).toFixed(2),
      median(rs.map((r) => r.p99)).toFixed(2),
      (rps / baseline).toFixed(2),
      cpu.toFixed(1),
      (baselineCpu / cpu).toFixed(2),
      (median(rs.map((r) => r.bytes)) / 1024).toFixed(1),
      (cpu / (median(rs.map((r) => r.bytes)) / 1024)).toFixed(2),
      s.redisUrl ? median(rs.map((r) => r.redisCmds)).toFixed(2) : "",
      String(rs.reduce((n, r) => n + r.errors, 0)),
    ];
  });
  const header = [
    "scenario",
    "req/s",
    "p50 ms",
    "p99 ms",
    "ratio",
    "CPU µs/req",
    "CPU ratio",
    "KiB/resp",
    "CPU µs/KiB",
    "Redis cmd/req",
    "errors",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  process.stdout.write(
    `\nbench: ${HAS_WRK ? "wrk" : "autocannon"}, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION}s, medians; taskset ${HAS_TASKSET ? "on" : "off"}; node ${process.version}\n`,
  );
  process.stdout.write(
    "ratio = req/s ÷ baseline req/s; CPU ratio = baseline CPU per request ÷ this scenario's (1.00 = costs the server what the bare baseline does)\n",
  );
  process.stdout.write(line(header) + "\n" + rows.map(line).join("\n") + "\n");
  process.stdout.write(`metered calls counted in the key's hour window: ${metered}\n`);
  const rps = (name: string) => (results.has(name) ? median(results.get(name)!.map((r) => r.rps)) : Number.NaN);
  const service = rps(SVC_MCP) / rps(SVC_REST_LEAN);
  const bare = rps(SHAPE_MCP) / rps(SHAPE_REST_LEAN);
  if (Number.isFinite(service) || Number.isFinite(bare)) {
    process.stdout.write(
      `MCP get_node ÷ REST lean, req/s: service ${service.toFixed(2)}; bare node:http in the same two shapes ${bare.toFixed(2)} (the ceiling the shapes set)\n`,
    );
  }
  const floors = DURABLE.map((name) => rps(name) / rps(scenarios[0]!.name));
  if (floors.some(Number.isFinite)) {
    const served = METERED.map((name, i) => rps(name) / rps(DURABLE[i]!));
    process.stdout.write(
      `durable floor ÷ baseline, req/s (one key, 256, 10,000 keys): ${floors.map((r) => r.toFixed(2)).join(", ")} (the ceiling for a metered request on the embedded store)\n`,
    );
    process.stdout.write(
      `metered ÷ durable floor, req/s (one key, 256, 10,000 keys): ${served.map((r) => r.toFixed(2)).join(", ")} (what h3, the key lookup, the handler and the headers leave)\n`,
    );
  }
  const cpu = (name: string) => (results.has(name) ? median(results.get(name)!.map((r) => r.cpuUs)) : Number.NaN);
  for (const line of cpuRatioLines(cpu)) process.stdout.write(line + "\n");
  const tail = _tailLine(results, scenarios[0]!.name, METERED[0]);
  if (tail) process.stdout.write(tail + "\n");
}

/** Target of the tail: a metered one-key read's p99 at most twice the bare baseline's, same run. */
const P99_TARGET = 2;

/**
 * The metered one-key read's p99 against the bare baseline's, with what explains it. Under a
 * closed load of CONNECTIONS connections a request waits for the ones queued before it, so the
 * mean latency is CONNECTIONS ÷ req/s (Little's law) for any server: a server with half the
 * baseline's throughput has twice its latency before any stall. The tail factor (p99 ÷ that mean)
 * separates the two: equal factors mean the p99 is throughput alone; a higher one means stalls of
 * the service's own (GC pauses, the store's fold or cut, the batcher's flush).
 */
function _tailLine(results: Map<string, Result[]>, bare: string, metered: string): string | null {
  const rs = results.get(metered);
  const bs = results.get(bare);
  if (!rs || !bs) return null;
  const p99 = median(rs.map((r) => r.p99));
  const bareP99 = median(bs.map((r) => r.p99));
  const ratio = p99 / bareP99;
  const factor = (runs: Result[]) => median(runs.map((r) => r.p99)) / ((CONNECTIONS / median(runs.map((r) => r.rps))) * 1000);
  const verdict = ratio <= P99_TARGET ? "PASS" : "FAIL";
  return (
    `p99, metered one key ÷ bare baseline: ${p99.toFixed(2)} ÷ ${bareP99.toFixed(2)} ms = ${ratio.toFixed(2)} (target ≤ ${P99_TARGET.toFixed(2)}) ${verdict}; ` +
    `throughput alone (bare req/s ÷ metered req/s) accounts for ${(median(bs.map((r) => r.rps)) / median(rs.map((r) => r.rps))).toFixed(2)}; ` +
    `tail factor (p99 ÷ the mean latency ${CONNECTIONS} connections imply): metered ${factor(rs).toFixed(2)}, bare ${factor(bs).toFixed(2)}`
  );
}

/**
 * A judged ratio: the product of the `over` rows' CPU per request divided by the product of the
 * `under` rows' (one row each for a plain ratio; two each for a ratio of ratios), with its target
 * (issue 44, docs/performance.md#the-ratios-the-metering-edge-is-judged-by) when it has one.
 */
interface Judged {
  label: string;
  over: readonly string[];
  under: readonly string[];
  target?: { atMost: number } | { atLeast: number };
}

const JUDGED: readonly Judged[] = [
  { label: "service ÷ contract floor, one key (the service's own code)", over: [METERED[0]], under: [CONTRACT], target: { atMost: 1.1 } },
  { label: "service ÷ contract floor, 10,000 keys", over: [METERED[2]], under: [CONTRACT_10K], target: { atMost: 1.15 } },
  {
    label: "contract floor ÷ durable floor, one key (h3 and the contract's headers)",
    over: [CONTRACT],
    under: [DURABLE[0]],
    target: { atMost: 1.1 },
  },
  { label: "service, 10,000 keys ÷ one key", over: [METERED[2]], under: [METERED[0]], target: { atMost: 1.1 } },
  // MCP's cost relative to REST lean, against the same relation between the two bare shapes: 1.00
  // is an MCP endpoint that adds nothing to its bytes' own cost beyond what REST lean adds to its.
  {
    label: "MCP get_node against its ceiling ((lean ÷ MCP) service ÷ (lean ÷ MCP) bare shapes)",
    over: [SVC_REST_LEAN, SHAPE_MCP],
    under: [SVC_MCP, SHAPE_REST_LEAN],
    target: { atLeast: 0.95 },
  },
  { label: "mixed traffic ÷ metered one key", over: [MIXED], under: [METERED[0]], target: { atMost: 1.6 } },
  { label: "service ÷ durable floor, one key", over: [METERED[0]], under: [DURABLE[0]] },
  { label: "service ÷ durable floor, 10,000 keys", over: [METERED[2]], under: [DURABLE[2]] },
  { label: "durable floor, 10,000 keys ÷ one key", over: [DURABLE[2]], under: [DURABLE[0]] },
];

function _judgedValue(j: Judged, cpu: (scenario: string) => number): number {
  const product = (rows: readonly string[]) => rows.reduce((p, row) => p * cpu(row), 1);
  return product(j.over) / product(j.under);
}

function _verdict(j: Judged, value: number): string {
  if (!j.target) return "";
  const ok = "atMost" in j.target ? value <= j.target.atMost : value >= j.target.atLeast;
  const bound = "atMost" in j.target ? `≤ ${j.target.atMost.toFixed(2)}` : `≥ ${j.target.atLeast.toFixed(2)}`;
  return ` (target ${bound}) ${ok ? "PASS" : "FAIL"}`;
}

/**
 * The judged CPU-per-request ratios from this run's medians (the rounds above). The paired
 * estimates below are the better ones; these show where the rounds agree. Rows not run print "n/a".
 */
function cpuRatioLines(cpu: (scenario: string) => number): string[] {
  return [
    "CPU per request, judged ratios from the rounds' medians:",
    ...JUDGED.map((j) => {
      const value = _judgedValue(j, cpu);
      return Number.isFinite(value) ? `  ${j.label}: ${value.toFixed(2)}${_verdict(j, value)}` : `  ${j.label}: n/a`;
    }),
    _frameworkBoundLine(cpu),
  ];
}

/**
 * The least the contract floor can be against the durable floor while it runs on h3: the durable
 * floor plus what h3 costs over the bare baseline on the same bytes (the framework floor), with
 * every header free. A target below it cannot be met by sending headers more cheaply.
 */
function _frameworkBoundLine(cpu: (scenario: string) => number): string {
  const bound = (cpu(DURABLE[0]) + cpu(FRAMEWORK) - cpu(BARE)) / cpu(DURABLE[0]);
  return Number.isFinite(bound)
    ? `  the least contract floor ÷ durable floor can be on h3 (h3's own cost over the bare baseline, every header free): ${bound.toFixed(2)}`
    : "  the least contract floor ÷ durable floor can be on h3: n/a";
}

/**
 * The judged ratios again, each from pairs of short runs of its rows back to back (in order, then
 * reversed on odd pairs): the median and interquartile range of the pair ratios. On a shared
 * machine the CPU a request costs drifts within seconds; rows measured 20–40 s apart in the rounds
 * above can read a ratio 0.3 off, where runs a second apart drift alike.
 */
async function _pairedRatios(scenarios: Scenario[]): Promise<string[]> {
  const byName = new Map(scenarios.map((s) => [s.name, s]));
  const lines: string[] = [];
  if (PAIRS <= 0) return lines;
  for (const j of JUDGED) {
    const rows = [...new Set([...j.over, ...j.under])].map((name) => byName.get(name));
    if (rows.some((s) => s === undefined)) continue;
    const ratios: number[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? rows : [...rows].reverse();
      const cpu = new Map<string, number>();
      for (const s of order) cpu.set(s!.name, (await _load(s!, PAIR_SECONDS)).cpuUs);
      ratios.push(_judgedValue(j, (name) => cpu.get(name)!));
    }
    ratios.sort((x, y) => x - y);
    const q = (f: number) => ratios[Math.min(ratios.length - 1, Math.floor(f * ratios.length))]!.toFixed(2);
    const value = median(ratios);
    lines.push(`  ${j.label}: ${value.toFixed(2)} (interquartile ${q(0.25)}–${q(0.75)})${_verdict(j, value)}`);
  }
  return lines.length === 0
    ? lines
    : [`CPU per request, judged ratios from ${PAIRS} pairs of ${PAIR_SECONDS} s runs back to back (median of the pair ratios):`, ...lines];
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${String(error)}\n`);
  process.exit(1);
});
