/**
 * A service bundle started for paired runs and profiles (`bench/ab.ts`, `bench/profile.ts`), with
 * the state both need (one key, many keys in turn, the mixed cycle over 1,000 of them), and the
 * rows they load it with, so a profile is of the very requests a pair measured.
 */
import type { ChildProcess } from "node:child_process";
import { freePort } from "../test/helpers/child-server.ts";
import {
  benchServiceEnv,
  type CycleRequest,
  issueKey,
  issueKeys,
  requestCycleScript,
  rotationScript,
  runWrk,
  spawnServer,
  waitReady,
} from "./load-tools.ts";
import { mixedCycle } from "./mixed-cycle.ts";
import { CLOCK_TICKS, cpuTicks } from "./process-cpu.ts";

const ADMIN = "bench-admin-secret-0123456789";
const NODE = "eu261-compensation";

export interface ServiceUnderLoad {
  /** Which side of a pair (0 or 1, in start order). */
  index: number;
  proc: ChildProcess;
  url: string;
  key: string;
  keys: string[];
  cycle: CycleRequest[];
}

export interface LoadRow {
  name: string;
  args: (side: ServiceUnderLoad) => string[];
}

/** The judged rows, and the mixed row's evaluations and MCP calls alone; `keys` is the number of keys in turn. */
export function loadRows(keys: number): LoadRow[] {
  return [
    { name: "one key", args: (s) => ["-H", `x-service-key: ${s.key}`, `${s.url}/api/demo?vertical=travel&node=${NODE}`] },
    {
      name: `${keys} keys in turn`,
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
    // The mixed row's MCP tools/call get_node alone (one key each, over the cycle's keys).
    { name: "mcp", args: (s) => ["-s", requestCycleScript(s.cycle.filter((r) => r.path === "/mcp")), s.url] },
  ];
}

/** Rows whose name matches `pattern` (all when it is empty). */
export function selectRows(rows: LoadRow[], pattern: string | undefined): LoadRow[] {
  return rows.filter((r) => !pattern || new RegExp(pattern, "i").test(r.name));
}

let started = 0;

/** Starts `bundle` pinned to core 0 on a fresh state folder, limits raised, with `keys` keys issued; `extraEnv` on top. */
export async function startService(
  bundle: string,
  keys: number,
  nodeArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<ServiceUnderLoad> {
  const port = await freePort();
  const proc = spawnServer([...nodeArgs, bundle], { ...benchServiceEnv(port, ADMIN), ...extraEnv });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(proc, `${url}/healthz`);
  const body = { vertical: "travel", label: "ab" };
  const key = await issueKey(url, ADMIN, body);
  const issued = await issueKeys(url, ADMIN, body, keys);
  const index = (await (await fetch(`${url}/api/demo?vertical=travel&lean=true`)).json()) as { nodes: Array<{ id: string }> };
  return {
    index: started++,
    proc,
    url,
    key,
    keys: issued,
    cycle: mixedCycle(
      issued.slice(0, 1000),
      index.nodes.map((n) => n.id),
    ),
  };
}

/** Loads `row` for `seconds` (wrk, 64 connections, on core 1); the server's CPU µs per request and the requests sent. */
export async function loadRow(side: ServiceUnderLoad, row: LoadRow, seconds: number): Promise<{ cpuUs: number; requests: number }> {
  const before = cpuTicks(side.proc.pid!);
  const out = await runWrk(["-t1", "-c64", `-d${seconds}s`, ...row.args(side)], 1);
  const after = cpuTicks(side.proc.pid!);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  if (bad > 0) throw new Error(`${row.name}: ${bad} answers were not 2xx`);
  return { cpuUs: (((after - before) / CLOCK_TICKS) * 1e6) / requests, requests };
}
