/**
 * `npm run bench:signatures`: what signed answers cost (docs/signed-answers.md).
 *
 * 1. Metered reads, signed vs unsigned: the same server bundle over the same build, once as built
 *    (every node and index signed) and once with the manifest's signatures removed (the runtime
 *    then sends no signature headers). The two run in alternating pairs (A B, B A, …, the order
 *    flipped each pair), since consecutive runs on a shared machine differ by ±15%; the server's
 *    CPU time per request (from /proc) is compared pair by pair.
 * 2. Dynamic signing: digest + Ed25519 signature of an evaluation answer, per answer, next to
 *    serialising the same answer (JSON.stringify), in-process.
 * 3. Build signing: the signature stage over the built manifest, per signed file.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signArtifacts } from "../build/stages/sign.ts";
import { signAnswer } from "../runtime/shared/answer-signature.ts";
import type { Manifest } from "../runtime/shared/schema/artifacts.ts";
import { generateSigningKey } from "../runtime/shared/signing-keys.ts";
import { freePort } from "../test/helpers/child-server.ts";
import { benchServiceEnv, HAS_WRK, issueKey, runWrk, spawnServer, waitReady } from "./load-tools.ts";
import { CLOCK_TICKS, cpuTicks, median } from "./process-cpu.ts";

// BENCH_SECONDS per run, BENCH_PAIRS of alternating runs.
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 6);
const ADMIN = "bench-admin-secret-0123456789";
const NODE = "eu261-compensation";

async function main(): Promise<void> {
  if (!HAS_WRK) throw new Error("wrk is needed (npm run bench installs it: scripts/ensure-bench-tools.sh)");
  const out = mkdtempSync(join(tmpdir(), "vkr-bench-sign-"));
  execFileSync(process.execPath, ["--import", "tsx", "build/cli.ts", "--out", out], { stdio: "inherit" });
  execFileSync(process.execPath, ["--import", "tsx", "build/bundle-server.ts"], { stdio: "inherit" });
  const signedData = realpathSync(join(out, "data"));
  const manifest = JSON.parse(readFileSync(join(signedData, "manifest.json"), "utf8")) as Manifest;
  // The same build without signatures: the runtime serves it as it served every build before them.
  const unsigned = mkdtempSync(join(tmpdir(), "vkr-bench-unsigned-"));
  cpSync(signedData, join(unsigned, "data"), { recursive: true });
  const { signing: _dropped, ...bare } = manifest;
  writeFileSync(join(unsigned, "data", "manifest.json"), JSON.stringify(bare));

  const servers: ChildProcess[] = [];
  try {
    const sides = [];
    for (const [name, dist] of [
      ["signed", out],
      ["unsigned", unsigned],
    ] as const) {
      const port = await freePort();
      const proc = await _spawn(port, dist);
      servers.push(proc);
      const url = `http://127.0.0.1:${port}`;
      const key = await issueKey(url, ADMIN, { vertical: "travel", label: "bench" });
      const target = `${url}/api/demo?vertical=travel&node=${NODE}`;
      const probe = await fetch(target, { headers: { "x-service-key": key } });
      if (probe.status !== 200 || (name === "signed") !== probe.headers.has("signature"))
        throw new Error(`${name}: unexpected answer ${probe.status}`);
      sides.push({ name, pid: proc.pid!, target, key });
    }
    for (const s of sides) await _run(s, 1); // warm-up
    const ratios: number[] = [];
    const cpu: Record<string, number[]> = { signed: [], unsigned: [] };
    for (let pair = 0; pair < PAIRS; pair++) {
      const order = pair % 2 === 0 ? sides : [...sides].reverse();
      const got: Record<string, number> = {};
      for (const s of order) got[s.name] = await _run(s, SECONDS);
      cpu.signed!.push(got.signed!);
      cpu.unsigned!.push(got.unsigned!);
      ratios.push(got.signed! / got.unsigned!);
      process.stdout.write(
        `pair ${pair + 1}: signed ${got.signed!.toFixed(1)} µs/req, unsigned ${got.unsigned!.toFixed(1)} µs/req, ratio ${ratios.at(-1)!.toFixed(3)}\n`,
      );
    }
    process.stdout.write(
      `metered full node, server CPU per request: signed median ${median(cpu.signed!).toFixed(1)} µs, unsigned ${median(cpu.unsigned!).toFixed(1)} µs; ` +
        `pair ratios signed/unsigned median ${median(ratios).toFixed(3)} (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)})\n`,
    );
  } finally {
    for (const s of servers) s.kill("SIGTERM");
  }

  // 2. Dynamic signing, in-process: an evaluation-sized answer.
  const body = JSON.parse(readFileSync(join(signedData, "verticals", "travel", "nodes", `${NODE}.lean.json`), "utf8")) as Record<
    string,
    unknown
  >;
  const key = generateSigningKey();
  const identity = {
    vertical: "travel",
    node: NODE,
    version: "0123456789abcdef",
    view: "evaluation",
    input: "x".repeat(44),
    build: manifest.build_id,
  };
  const n = 5000;
  const text = JSON.stringify(body);
  let t = performance.now();
  for (let i = 0; i < n; i++) JSON.stringify(body);
  const stringifyUs = ((performance.now() - t) * 1000) / n;
  t = performance.now();
  for (let i = 0; i < n; i++) signAnswer(key, text, identity, 1_800_000_000);
  const signUs = ((performance.now() - t) * 1000) / n;
  process.stdout.write(
    `dynamic answer (${text.length} bytes): digest + Ed25519 signature ${signUs.toFixed(1)} µs; JSON.stringify of the same answer ${stringifyUs.toFixed(1)} µs\n`,
  );

  // 3. Build signing: the stage over this build's manifest.
  t = performance.now();
  const signed = signArtifacts(manifest, { key, dev: true });
  const ms = performance.now() - t;
  const files = Object.keys(signed.signatures).length;
  process.stdout.write(`build signing: ${files} files in ${ms.toFixed(0)} ms, ${((ms * 1000) / files).toFixed(1)} µs per file\n`);
}

async function _spawn(port: number, dist: string): Promise<ChildProcess> {
  const proc = spawnServer(["dist/server/index.mjs"], { ...benchServiceEnv(port, ADMIN), DIST_DIR: dist });
  await waitReady(proc, `http://127.0.0.1:${port}/healthz`);
  return proc;
}

/** Server CPU µs per request over one wrk run. */
async function _run(side: { pid: number; target: string; key: string }, seconds: number): Promise<number> {
  const before = cpuTicks(side.pid);
  const report = await runWrk(["-t1", "-c64", `-d${seconds}s`, "-H", `x-service-key: ${side.key}`, side.target], 1);
  const after = cpuTicks(side.pid);
  const requests = Number(/(\d+) requests in/.exec(report)?.[1] ?? 0);
  if (/Non-2xx/.test(report)) throw new Error(`non-2xx answers:\n${report}`);
  return (((after - before) / CLOCK_TICKS) * 1e6) / requests;
}

await main();
