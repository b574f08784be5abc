/**
 * The x402 paid-read row (`npm run bench` runs it after the main table; alone:
 * `tsx bench/x402-per-read.ts`): the official client (`@x402/fetch` + `@x402/evm`, a fresh viem
 * key) reads a gated travel node with `pay=x402`, against a facilitator built from `@x402/core`'s
 * own facilitator code with the chain mocked (`test/payments/stand-ins/x402-facilitator.ts`, in
 * this process, so its cost is not the server's). Each read is two requests (the 402, then the
 * paid retry) and, on the server, one `/verify` and one `/settle`, settled before the answer.
 * Reported: the server's CPU time per paid read (from /proc, the whole exchange), facilitator
 * calls per read, and the latency of a whole read (median, p95). Not wrk-driven: every read needs
 * its own signed payment, so reads go in a few concurrent loops.
 *
 * The service runs from the production bundle when `dist/server/index.mjs` exists, else from source
 * through tsx (slower start, same request path). BENCH_X402_READS (default 300) and
 * BENCH_X402_CONCURRENCY (default 8).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { freePort } from "../test/helpers/child-server.ts";
import { startFacilitator, x402Env } from "../test/payments/stand-ins/x402-facilitator.ts";
import { benchServiceEnv, waitReady } from "./load-tools.ts";
import { CLOCK_TICKS, cpuTicks, median } from "./process-cpu.ts";

const READS = Number(process.env.BENCH_X402_READS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_X402_CONCURRENCY ?? 8);
export const X402_ROW = "x402 paid read (official client, pay=x402, settled before the answer)";

export async function runX402PaidRead(): Promise<void> {
  const facilitator = await startFacilitator();
  const port = await freePort();
  const bundle = existsSync("dist/server/index.mjs");
  const args = bundle ? ["dist/server/index.mjs"] : ["--import", "tsx", "runtime/server.ts"];
  const server = spawn(process.execPath, args, {
    env: { ...process.env, ...benchServiceEnv(port, "bench-admin-secret-0123456789"), ...x402Env(facilitator, "base-sepolia") },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitReady(server, `${base}/healthz`, { timeoutMs: 30_000 });
    const wallet = facilitator.wallet(10n ** 15n);
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: wallet });
    const pay = wrapFetchWithPayment(fetch, client);
    // A gated travel node of this build (the last of the index: past any trial module).
    const index = (await (await fetch(`${base}/api/demo?vertical=travel&lean=true`)).json()) as { nodes: Array<{ id: string }> };
    const url = `${base}/api/demo?vertical=travel&node=${index.nodes.at(-1)!.id}&pay=x402`;
    const first = await pay(url);
    if (first.status !== 200) throw new Error(`a paid read answered ${first.status}: ${(await first.text()).slice(0, 300)}`);
    // Warm-up: the facilitator's /supported, the JIT, the artifact cache.
    for (let i = 0; i < 10; i++) await (await pay(url)).arrayBuffer();
    const callsBefore = facilitator.calls.length;
    const cpuBefore = cpuTicks(server.pid!);
    const latencies: number[] = [];
    let failed = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < READS) {
          const started = performance.now();
          const res = await pay(url);
          await res.arrayBuffer();
          if (res.status !== 200 || !res.headers.get("payment-response")) failed++;
          latencies.push(performance.now() - started);
        }
      }),
    );
    const cpuMs = ((cpuTicks(server.pid!) - cpuBefore) / CLOCK_TICKS) * 1000;
    const calls = facilitator.calls.length - callsBefore;
    latencies.sort((a, b) => a - b);
    console.log(`\n${X402_ROW}${bundle ? "" : " [from source]"}`);
    console.log(
      [
        `  reads: ${READS} (${CONCURRENCY} concurrent), failed: ${failed}`,
        `  server CPU per paid read (402 + paid retry): ${(cpuMs / READS).toFixed(2)} ms`,
        `  facilitator calls per read: ${(calls / READS).toFixed(2)} (verify + settle), settlements: ${facilitator.settled.length}`,
        `  latency per read: median ${median(latencies).toFixed(1)} ms, p95 ${latencies[Math.floor(latencies.length * 0.95)]!.toFixed(1)} ms (facilitator in-process, chain mocked: no block time)`,
      ].join("\n"),
    );
  } finally {
    server.kill("SIGTERM");
    await facilitator.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await runX402PaidRead();
