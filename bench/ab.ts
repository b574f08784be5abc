/**
 * Paired A/B runs of two server bundles under the judged rows (metered full node with one key,
 * with many keys in turn, mixed traffic) and the mixed row's evaluations alone, for one change at a time: both bundles run side by side
 * on core 0 with the same state setup, and every pair loads A then B (B then A on odd pairs) for
 * each row, so the machine's drift hits both alike. Prints the server CPU per request of each run
 * and, per row, the median and range of the pair ratios B ÷ A.
 *
 *   npx tsx build/bundle-server.ts .tmp/ab/a   # before the change (e.g. from a checkout of main)
 *   npx tsx build/bundle-server.ts .tmp/ab/b   # after
 *   npx tsx bench/ab.ts .tmp/ab/a/index.mjs .tmp/ab/b/index.mjs
 *
 * AB_PAIRS (default 6), AB_SECONDS (4), AB_KEYS (keys in turn, 10,000), AB_ONLY (a pattern of row
 * names). Both bundles serve the same dist/ (build it first).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../test/helpers/child-server.ts";
import { MCP_HEADERS, mixedCycle } from "./mixed-cycle.ts";
import { CLOCK_TICKS, cpuTicks, median } from "./process-cpu.ts";
import { HAS_TASKSET, issueKey, issueKeys, requestCycleScript, rotationScript, runWrk, type CycleRequest } from "./load-tools.ts";

const PAIRS = Number(process.env.AB_PAIRS ?? 6);
const SECONDS = Number(process.env.AB_SECONDS ?? 4);
const KEYS = Number(process.env.AB_KEYS ?? 10_000);
const ADMIN = "bench-admin-secret-0123456789";
const NODE = "eu261-compensation";

interface Side {
  proc: ChildProcess;
  url: string;
  key: string;
  keys: string[];
  cycle: CycleRequest[];
}
interface Row {
  name: string;
  args: (side: Side) => string[];
}

async function main(): Promise<void> {
  const [a, b] = process.argv.slice(2);
  if (!a || !b) throw new Error("usage: bench/ab.ts <bundle A> <bundle B>");
  const sides = [await _start(a), await _start(b)];
  const all: Row[] = [
    { name: "one key", args: (s) => ["-H", `x-service-key: ${s.key}`, `${s.url}/api/demo?vertical=travel&node=${NODE}`] },
    {
      name: `${KEYS} keys in turn`,
      args: (s) => [
        "-s",
        rotationScript(s.keys, `wrk.headers["x-service-key"] = v\n  return wrk.format()`),
        `${s.url}/api/demo?vertical=travel&node=${NODE}`,
      ],
    },
    { name: "mixed", args: (s) => ["-s", requestCycleScript(s.cycle), s.url] },
    {
      name: "evaluate",
      args: (s) => ["-s", requestCycleScript(s.cycle.filter((r) => r.path === "/api/evaluate")), s.url],
    },
  ];
  const rows = all.filter((r) => !process.env.AB_ONLY || new RegExp(process.env.AB_ONLY, "i").test(r.name));
  try {
    // Warm-up: JIT, caches, and every key of the rotation sent once.
    for (const row of rows) for (const side of sides) await _run(side, row, Math.max(2, Math.ceil(KEYS / 2500)));
    const cpu = new Map<string, Array<[number, number]>>(rows.map((r) => [r.name, []]));
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const row of rows) {
        const order = pair % 2 === 0 ? [0, 1] : [1, 0];
        const got: number[] = [];
        for (const i of order) got[i] = await _run(sides[i]!, row, SECONDS);
        cpu.get(row.name)!.push([got[0]!, got[1]!]);
        process.stdout.write(
          `pair ${pair + 1} ${row.name}: A ${got[0]!.toFixed(1)} µs, B ${got[1]!.toFixed(1)} µs, B÷A ${(got[1]! / got[0]!).toFixed(3)}\n`,
        );
      }
    }
    process.stdout.write("\nrow: median CPU µs/req A, B; pair ratio B÷A median (min–max)\n");
    for (const row of rows) {
      const runs = cpu.get(row.name)!;
      const ratios = runs.map(([x, y]) => y / x).sort((p, q) => p - q);
      process.stdout.write(
        `${row.name}: ${median(runs.map((r) => r[0])).toFixed(1)}, ${median(runs.map((r) => r[1])).toFixed(1)}; ${median(ratios).toFixed(3)} (${ratios[0]!.toFixed(3)}–${ratios.at(-1)!.toFixed(3)}), B lower in ${ratios.filter((r) => r < 1).length} of ${ratios.length}\n`,
      );
    }
  } finally {
    for (const s of sides) s.proc.kill("SIGTERM");
  }
}

async function _start(bundle: string): Promise<Side> {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-ab-")),
    ADMIN_KEY: ADMIN,
    LOG_LEVEL: "warn",
    ANON_RATE_PER_MINUTE: String(1e9),
    RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 1e9, daily_standard: 1e9, daily_scale: 1e9, per_key_monthly: 1e9 }),
  };
  const argv = HAS_TASKSET ? ["-c", "0", process.execPath, bundle] : [bundle];
  const proc = spawn(HAS_TASKSET ? "taskset" : process.execPath, argv, { env, stdio: ["ignore", "ignore", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 300 || proc.exitCode !== null) throw new Error(`${bundle} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const body = { vertical: "travel", label: "ab" };
  const key = await issueKey(url, ADMIN, body);
  const keys = await issueKeys(url, ADMIN, body, KEYS);
  const index = (await (await fetch(`${url}/api/demo?vertical=travel&lean=true`)).json()) as { nodes: Array<{ id: string }> };
  return {
    proc,
    url,
    key,
    keys,
    cycle: mixedCycle(
      keys.slice(0, 1000),
      index.nodes.map((n) => n.id),
    ),
  };
}

async function _run(side: Side, row: Row, seconds: number): Promise<number> {
  const before = cpuTicks(side.proc.pid!);
  const out = await runWrk(["-t1", "-c64", `-d${seconds}s`, ...row.args(side)], 1);
  const after = cpuTicks(side.proc.pid!);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (bad > 0) throw new Error(`${row.name}: ${bad} answers were not 2xx`);
  return (((after - before) / CLOCK_TICKS) * 1e6) / requests;
}

main().catch((error: unknown) => {
  process.stderr.write(`ab failed: ${String(error)}\n`);
  process.exit(1);
});
