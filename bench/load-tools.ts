/**
 * What the benchmark scripts need to drive load: whether wrk is installed, running it (pinned to
 * a core when `taskset` exists), wrk scripts that take their values in turn or at random, and
 * issuing keys.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const HAS_WRK = (() => {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
    return true;
  } catch (error) {
    // wrk prints its version and exits 1; only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
})();

export const HAS_TASKSET = (() => {
  try {
    execFileSync("taskset", ["-c", "0", "true"]);
    return true;
  } catch {
    return false;
  }
})();

/**
 * Starts `node …args` pinned to core 0 (when taskset exists; the load generator gets core 1), with
 * `env` over this process's, its output dropped and its errors shown.
 */
export function spawnServer(args: string[], env: Record<string, string> = {}): ChildProcess {
  const argv = [process.execPath, ...args];
  return spawn(HAS_TASKSET ? "taskset" : argv[0]!, HAS_TASKSET ? ["-c", "0", ...argv] : argv.slice(1), {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Resolves once `url` answers 2xx; fails when `proc` exits first or `timeoutMs` passes (then the process is killed). */
export async function waitReady(proc: ChildProcess, url: string, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<void> {
  const { timeoutMs = 15_000, intervalMs = 50 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${proc.spawnargs.join(" ")} exited with ${proc.exitCode}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (performance.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`${proc.spawnargs.join(" ")} did not answer ${url} within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Runs wrk with `args` (on `core` when taskset exists) and resolves with its report. Asynchronous, so the caller keeps sampling while it runs. */
export function runWrk(args: string[], core?: number): Promise<string> {
  const pinned = core !== undefined && HAS_TASKSET;
  return new Promise<string>((resolve, reject) => {
    const proc = spawn(pinned ? "taskset" : "wrk", pinned ? ["-c", String(core), "wrk", ...args] : args, {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let text = "";
    proc.stdout!.on("data", (d: Buffer) => (text += d));
    proc.once("error", reject);
    proc.once("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}`))));
  });
}

/** The requests a wrk report counts, and how many of them were not answered 2xx or 3xx. */
export function wrkCounts(report: string): { requests: number; non2xx: number } {
  return {
    requests: Number(/(\d+) requests in/.exec(report)?.[1] ?? 0),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(report)?.[1] ?? 0),
  };
}

/** A wrk script file whose requests take `values` in turn; `use` is the Lua body of `request`, with the value in `v`. */
export function rotationScript(values: string[], use: string): string {
  const script = join(mkdtempSync(join(tmpdir(), "vkr-wrk-")), "rotate.lua");
  writeFileSync(
    script,
    `local values = {${values.map((v) => JSON.stringify(v)).join(",")}}\nlocal i = 0\nrequest = function()\n  i = i % #values + 1\n  local v = values[i]\n  ${use}\nend\n`,
  );
  return script;
}

/**
 * A wrk script file whose requests pick a value of `first` and one of `second` at random, each on
 * its own (seeded with the start time); `use` is the Lua body of `request`, with the values in `a` and `b`.
 */
export function randomPairScript(first: string[], second: string[], use: string): string {
  const script = join(mkdtempSync(join(tmpdir(), "vkr-wrk-")), "random.lua");
  const list = (values: string[]) => `{${values.map((v) => JSON.stringify(v)).join(",")}}`;
  writeFileSync(
    script,
    `local first = ${list(first)}\nlocal second = ${list(second)}\ninit = function(args)\n  math.randomseed(os.time())\nend\nrequest = function()\n  local a = first[math.random(#first)]\n  local b = second[math.random(#second)]\n  ${use}\nend\n`,
  );
  return script;
}

/** One request of a fixed cycle (mixed traffic). */
export interface CycleRequest {
  method: "GET" | "POST";
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A wrk script file that sends `cycle` in order, round and round; the requests are formatted once, at start. */
export function requestCycleScript(cycle: CycleRequest[]): string {
  const script = join(mkdtempSync(join(tmpdir(), "vkr-wrk-")), "cycle.lua");
  const lua = (v: string) => JSON.stringify(v); // the values are ASCII, where JSON and Lua escapes agree
  const entries = cycle.map(
    (r) =>
      `{${lua(r.method)}, ${lua(r.path)}, {${Object.entries(r.headers)
        .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
        .join(", ")}}, ${r.body === undefined ? "nil" : lua(r.body)}}`,
  );
  writeFileSync(
    script,
    `local cycle = {\n${entries.join(",\n")}\n}\nlocal formatted = {}\nlocal i = 0\ninit = function(args)\n  for k, r in ipairs(cycle) do formatted[k] = wrk.format(r[1], r[2], r[3], r[4]) end\nend\nrequest = function()\n  i = i % #formatted + 1\n  return formatted[i]\nend\n`,
  );
  return script;
}

/** `count` keys issued through the admin route, five per call, a few calls at a time. */
export async function issueKeys(url: string, admin: string, body: { vertical: string; label: string }, count: number): Promise<string[]> {
  const keys: string[] = [];
  const batch = async () => {
    while (keys.length < count) {
      const quantity = Math.min(5, count - keys.length);
      const res = await fetch(`${url}/api/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ ...body, quantity }),
      });
      if (res.status !== 201) throw new Error(`key issuance answered ${res.status}: ${await res.text()}`);
      keys.push(...((await res.json()) as { keys: Array<{ key: string }> }).keys.map((k) => k.key));
    }
  };
  await Promise.all(Array.from({ length: 8 }, batch));
  return keys.slice(0, count);
}

/** One key issued through the admin route. */
export async function issueKey(url: string, admin: string, body: { vertical: string; label: string }): Promise<string> {
  const res = await fetch(`${url}/api/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`key issuance answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { keys: Array<{ key: string }> }).keys[0]!.key;
}

/**
 * The environment of a service started for a bench: its port, a fresh state folder, the admin key,
 * and every limit raised, so no request is denied while the counters still do all their work
 * (free reads too: from one load generator they would be 429s, not retrievals).
 */
export function benchServiceEnv(port: number, admin: string): Record<string, string> {
  return {
    PORT: String(port),
    DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-bench-")),
    ADMIN_KEY: admin,
    LOG_LEVEL: "warn",
    ANON_RATE_PER_MINUTE: String(1e9),
    RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 1e9, daily_standard: 1e9, daily_scale: 1e9, per_key_monthly: 1e9 }),
  };
}
