/**
 * What both benchmark scripts need to drive load: whether wrk is installed, running it (pinned to
 * a core when `taskset` exists), wrk scripts that take their values in turn, and issuing a key.
 */
import { execFileSync, spawn } from "node:child_process";
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

/** Runs wrk with `args` (on `core` when taskset exists) and resolves with its report. Asynchronous, so the caller keeps sampling while it runs. */
export function runWrk(args: string[], core?: number): Promise<string> {
  const pinned = core !== undefined && HAS_TASKSET;
  return new Promise<string>((resolve, reject) => {
    const proc = spawn(pinned ? "taskset" : "wrk", pinned ? ["-c", String(core), "wrk", ...args] : args, { stdio: ["ignore", "pipe", "inherit"] });
    let text = "";
    proc.stdout!.on("data", (d: Buffer) => (text += d));
    proc.once("error", reject);
    proc.once("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}`))));
  });
}

/** A wrk script file whose requests take `values` in turn; `use` is the Lua body of `request`, with the value in `v`. */
export function rotationScript(values: string[], use: string): string {
  const script = join(mkdtempSync(join(tmpdir(), "vkr-wrk-")), "rotate.lua");
  writeFileSync(script, `local values = {${values.map((v) => JSON.stringify(v)).join(",")}}\nlocal i = 0\nrequest = function()\n  i = i % #values + 1\n  local v = values[i]\n  ${use}\nend\n`);
  return script;
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
