/**
 * `npm run bench:tail`: what the metered one-key read's p99 is made of. The bare baseline, the
 * contract floor and the service each serve the one-key read (64 connections, server on core 0,
 * wrk on core 1), in turn for TAIL_ROUNDS rounds of TAIL_SECONDS, with `bench/tail-watch.mjs`
 * loaded into each server: besides wrk's latency percentiles, every GC pause and the event loop's
 * delay are recorded inside the server. Printed per server (medians over the rounds):
 *
 * - req/s, p50 and p99, and the tail factor (p99 ÷ the mean latency 64 connections imply by
 *   Little's law: equal factors mean a p99 made by throughput alone);
 * - the event loop's delay (p99, max): a stall of the server's own shows here, not only in wrk;
 * - GC: pauses a second, their mean and largest, and the share of the wall clock they took;
 * - stalls (turns of the loop that held a 1 ms timer 20 ms or more) and, with TAIL_PROFILE=1,
 *   what ran in them: a sampling CPU profile runs during each round, and its samples inside
 *   stalls are summed by function. The profiler makes stalls of its own (a saturated server's p99
 *   read seven times higher with it), so its figures name functions, not the size of the tail.
 *
 * The watcher's timer costs CPU, so this pass is kept apart from the judged rows of
 * `npm run bench`. Argument: a server bundle (default: dist/server/index.mjs, built first).
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { freePort } from "../test/helpers/child-server.ts";
import { benchServiceEnv, HAS_WRK, issueKey, runWrk, spawnServer, waitReady, wrkCounts } from "./load-tools.ts";
import { median } from "./process-cpu.ts";

const ROUNDS = Number(process.env.TAIL_ROUNDS ?? 3);
const SECONDS = Number(process.env.TAIL_SECONDS ?? 8);
const CONNECTIONS = 64;
const ADMIN = "bench-admin-secret-0123456789";
const NODE = "eu261-compensation";
const WATCH = resolve("bench/tail-watch.mjs");
const HOP_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "date", "content-length"]);

interface Watch {
  wallMs: number;
  utilization: number;
  gc: Record<string, { count: number; totalMs: number; maxMs: number }>;
  loopDelayMs: { p50: number; p99: number; p999: number; max: number };
  /** Turns of the loop that held a 1 ms timer STALL_MS or more, and what ran in them (ms of samples by function). */
  stalls: { count: number; totalMs: number; top: Array<[string, number]> };
}
interface Round {
  rps: number;
  p50: number;
  p99: number;
  watch: Watch;
}
interface Server {
  name: string;
  proc: ChildProcess;
  url: string;
  out: string;
}

async function main(): Promise<void> {
  if (!HAS_WRK) throw new Error("bench:tail needs wrk (scripts/ensure-bench-tools.sh installs it)");
  let bundle = process.argv[2];
  if (!bundle) {
    execFileSync(process.execPath, ["--import", "tsx", "build/cli.ts"], { stdio: "inherit" });
    execFileSync(process.execPath, ["--import", "tsx", "build/bundle-server.ts"], { stdio: "inherit" });
    bundle = "dist/server/index.mjs";
  }
  mkdirSync(".tmp/tail", { recursive: true });
  const artifact = join("dist/data/verticals/travel/nodes", `${NODE}.json`);
  const servers: Server[] = [];
  try {
    const svcPort = await freePort();
    const svc = await _start(
      "service (metered, one key)",
      [bundle],
      { ...benchServiceEnv(svcPort, ADMIN) },
      `http://127.0.0.1:${svcPort}/healthz`,
    );
    const key = await issueKey(`http://127.0.0.1:${svcPort}`, ADMIN, { vertical: "travel", label: "tail" });
    svc.url = `http://127.0.0.1:${svcPort}/api/demo?vertical=travel&node=${NODE}`;
    // The contract floor sends this very answer's headers (bench/contract-floor-server.ts).
    const answer = await fetch(svc.url, { headers: { "x-service-key": key } });
    await answer.arrayBuffer();
    const headers: Array<[string, string]> = [];
    answer.headers.forEach((value, name) => void (HOP_HEADERS.has(name) || headers.push([name, value])));
    const headersFile = ".tmp/tail/contract-headers.json";
    writeFileSync(headersFile, JSON.stringify(headers));
    const basePort = await freePort();
    const contractPort = await freePort();
    servers.push(
      await _start(
        "bare baseline (node:http)",
        ["bench/baseline-server.mjs", artifact, String(basePort)],
        {},
        `http://127.0.0.1:${basePort}/`,
      ),
      await _start(
        "contract floor",
        ["--import", "tsx", "bench/contract-floor-server.ts", artifact, String(contractPort), headersFile],
        {},
        `http://127.0.0.1:${contractPort}/api/demo`,
      ),
      svc,
    );
    const rounds = new Map<string, Round[]>(servers.map((s) => [s.name, []]));
    for (const s of servers) await _round(s, key, 2); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of round % 2 === 0 ? servers : [...servers].reverse()) rounds.get(s.name)!.push(await _round(s, key, SECONDS));
      process.stdout.write(`round ${round + 1} of ${ROUNDS} done\n`);
    }
    process.stdout.write(`\nmedians of ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections\n`);
    for (const s of servers) process.stdout.write(_line(s.name, rounds.get(s.name)!));
  } finally {
    for (const s of servers) s.proc.kill("SIGTERM");
  }
}

async function _round(s: Server, key: string, seconds: number): Promise<Round> {
  rmSync(s.out, { force: true });
  s.proc.kill("SIGUSR2"); // starts the watcher's measurement
  await new Promise((r) => setTimeout(r, 100));
  const report = await runWrk(["-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency", "-H", `x-service-key: ${key}`, s.url], 1);
  s.proc.kill("SIGUSR2"); // ends it: the watcher writes its figures
  for (let i = 0; !existsSync(s.out); i++) {
    if (i > 200) throw new Error(`${s.name}: the watcher wrote no figures`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const watch = JSON.parse(readFileSync(s.out, "utf8")) as Watch;
  const { non2xx } = wrkCounts(report);
  if (non2xx > 0) throw new Error(`${s.name}: ${non2xx} answers were not 2xx`);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(report)?.[1]),
    p50: _ms(/50%\s+([\d.]+)(us|ms|s)/.exec(report)),
    p99: _ms(/99%\s+([\d.]+)(us|ms|s)/.exec(report)),
    watch,
  };
}

function _line(name: string, rounds: Round[]): string {
  const m = (f: (r: Round) => number) => median(rounds.map(f));
  const rps = m((r) => r.rps);
  const p99 = m((r) => r.p99);
  const gcs = (r: Round) => Object.values(r.watch.gc);
  const gcCount = (r: Round) => gcs(r).reduce((n, g) => n + g.count, 0);
  const gcMs = (r: Round) => gcs(r).reduce((n, g) => n + g.totalMs, 0);
  const gcMax = (r: Round) => Math.max(0, ...gcs(r).map((g) => g.maxMs));
  const kinds = [...new Set(rounds.flatMap((r) => Object.keys(r.watch.gc)))]
    .map((k) => `${k} ${m((r) => (r.watch.gc[k]?.count ?? 0) / (r.watch.wallMs / 1000)).toFixed(1)}/s`)
    .join(", ");
  return (
    `${name}: ${rps.toFixed(0)} req/s, p50 ${m((r) => r.p50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, ` +
    `tail factor ${(p99 / ((CONNECTIONS / rps) * 1000)).toFixed(2)}; loop busy ${(m((r) => r.watch.utilization) * 100).toFixed(0)} %, ` +
    `loop delay p99 ${m((r) => r.watch.loopDelayMs.p99).toFixed(1)} ms, max ${m((r) => r.watch.loopDelayMs.max).toFixed(1)} ms; ` +
    `GC ${m((r) => gcCount(r) / (r.watch.wallMs / 1000)).toFixed(1)} pauses/s (${kinds || "none"}), ` +
    `mean ${m((r) => gcMs(r) / Math.max(1, gcCount(r))).toFixed(2)} ms, max ${m(gcMax).toFixed(2)} ms, ` +
    `${m((r) => (gcMs(r) / r.watch.wallMs) * 100).toFixed(1)} % of the wall clock; ` +
    `stalls of 20 ms or more ${m((r) => r.watch.stalls.count / (r.watch.wallMs / 1000)).toFixed(2)}/s, ` +
    `${m((r) => (r.watch.stalls.totalMs / r.watch.wallMs) * 100).toFixed(1)} % of the wall clock` +
    `${_stallTop(rounds)}\n`
  );
}

/** What ran inside the stalls, summed over the rounds: the six largest, in ms. */
function _stallTop(rounds: Round[]): string {
  const sum = new Map<string, number>();
  for (const r of rounds) for (const [name, ms] of r.watch.stalls.top) sum.set(name, (sum.get(name) ?? 0) + ms);
  const top = [...sum].sort((a, b) => b[1] - a[1]).slice(0, 6);
  return top.length === 0 ? "" : `\n    in the stalls: ${top.map(([name, ms]) => `${name} ${ms.toFixed(1)} ms`).join("; ")}`;
}

function _ms(match: RegExpExecArray | null): number {
  if (!match) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : match[2] === "s" ? value * 1000 : value;
}

async function _start(name: string, args: string[], env: Record<string, string>, readyUrl: string): Promise<Server> {
  const out = resolve(".tmp/tail", `${name.replace(/\W+/g, "-")}.json`);
  const proc = spawnServer(["--import", WATCH, ...args], { ...env, TAIL_WATCH_OUT: out });
  await waitReady(proc, readyUrl);
  return { name, proc, url: readyUrl, out };
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:tail failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
