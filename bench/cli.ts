/**
 * `npx tsx bench/cli.ts [checkout]`: how long `vkr` takes to answer, the way the README runs it
 * (`node bin/vkr.mjs …`) and the two npm ways (`npm run vkr -- …`, `npx vkr …`), for `--help`,
 * `status --url` (against a stand-in /readyz on a local port, or the running service at
 * `CLI_URL`) and `verify-answer` (a freshly signed answer and its JWK Set).
 * Prints the median of 5 runs (CLI_RUNS) of wall time, and of CPU time (user + sys) where
 * /usr/bin/time exists: on a shared machine CPU moves less than wall. `node -e 0` and
 * `npx --version` are printed as the floor no CLI can go under. `checkout` (default: this one) is
 * the folder whose bin/vkr.mjs runs, to measure an older checkout beside this one. The bundle is
 * made once before timing (a stale one would be rebundled by the first run).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { signAnswer } from "../runtime/shared/answer-signature.ts";
import { generateSigningKey, publicJwk } from "../runtime/shared/signing-keys.ts";
import { median } from "./process-cpu.ts";

const RUNS = Number(process.env.CLI_RUNS ?? 5);
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;

interface Timing {
  wall: number;
  cpu: number | null;
  code: number | null;
}

async function main(): Promise<void> {
  const checkout = resolve(process.argv[2] ?? ".");
  const bin = join(checkout, "bin", "vkr.mjs");
  const dir = mkdtempSync(join(tmpdir(), "vkr-bench-"));
  const readyz = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: "ready", build_id: "bench", store: "sqlite" }));
  });
  await new Promise<void>((done) => readyz.listen(0, "127.0.0.1", done));
  const url = process.env.CLI_URL ?? `http://127.0.0.1:${(readyz.address() as AddressInfo).port}`;
  try {
    const { answer, jwks } = _signedAnswer(dir);
    const commands: Array<[string, string[], number]> = [
      ["--help", ["--help"], 0],
      ["status --url", ["status", "--url", url], 0],
      ["verify-answer", ["verify-answer", answer, "--jwks", jwks], 0],
    ];
    // Bundle (or confirm the bundle is fresh) before anything is timed.
    await _time(process.execPath, [bin, "--help"], checkout);
    const rows: Array<[string, Timing[]]> = [
      ["floor: node -e 0", await _repeat(process.execPath, ["-e", "0"], checkout)],
      ["floor: npx --version", await _repeat("npx", ["--version"], checkout)],
    ];
    for (const [name, args, expected] of commands) {
      for (const [how, cmd, prefix] of [
        ["node bin/vkr.mjs", process.execPath, [bin]],
        ["npm run vkr --", "npm", ["run", "--silent", "vkr", "--"]],
        ["npx vkr", "npx", ["vkr"]],
      ] as const) {
        const runs = await _repeat(cmd, [...prefix, ...args], checkout);
        const bad = runs.find((r) => r.code !== expected);
        if (bad) throw new Error(`${how} ${name} exited ${bad.code}, expected ${expected}`);
        rows.push([`${how} ${name}`, runs]);
      }
    }
    process.stdout.write(`vkr answer time, median of ${RUNS} (checkout ${checkout}, status against ${url})\n`);
    for (const [name, runs] of rows) {
      const cpu = runs.every((r) => r.cpu !== null) ? `, CPU ${median(runs.map((r) => r.cpu!)).toFixed(2)} s` : "";
      process.stdout.write(`${name.padEnd(36)} wall ${median(runs.map((r) => r.wall)).toFixed(2)} s${cpu}\n`);
    }
  } finally {
    readyz.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function _repeat(cmd: string, args: string[], cwd: string): Promise<Timing[]> {
  const runs: Timing[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await _time(cmd, args, cwd));
  return runs;
}

/** One run; CPU from /usr/bin/time's user and sys seconds (children included, as npx has them). */
function _time(cmd: string, args: string[], cwd: string): Promise<Timing> {
  const [file, argv] = TIME ? [TIME, ["-f", "cpu %U %S", cmd, ...args]] : [cmd, args];
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(file, argv, { cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", fail);
    child.on("close", (code) => {
      const wall = (performance.now() - started) / 1000;
      const m = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
      // /usr/bin/time reports a failed command as "Command exited with non-zero status N".
      const exited = /Command exited with non-zero status (\d+)/.exec(stderr);
      done({ wall, cpu: m ? Number(m[1]) + Number(m[2]) : null, code: exited ? Number(exited[1]) : code });
    });
  });
}

/** A saved answer as `curl -si` writes it, signed with a fresh key, and that key's JWK Set. */
function _signedAnswer(dir: string): { answer: string; jwks: string } {
  const key = generateSigningKey();
  const body = JSON.stringify({ id: "bench-node", title: "A node" });
  const headers = signAnswer(key, body, { vertical: "bench", node: "bench-node", version: "1", view: "full", build: "bench" });
  const answer = join(dir, "answer.http");
  const lines = ["HTTP/1.1 200 OK", "content-type: application/json", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  writeFileSync(answer, `${lines.join("\r\n")}\r\n\r\n${body}`);
  const jwks = join(dir, "jwks.json");
  writeFileSync(jwks, JSON.stringify({ keys: [publicJwk(key.privateKey)] }));
  return { answer, jwks };
}

await main();
