/**
 * Runs the bundled server (dist/server/index.mjs, built into a temp folder) as a child process on
 * a free port, for tests that must kill it (SIGKILL) or run several instances.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { BUILD_CACHE_ENV, cachedServerBundleSync } from "./build-cache.ts";

let bundleDir: string | undefined;

/** The server bundle, made once per test run (test/helpers/build-cache.ts) and only read; once per process outside vitest (the bench). */
export function bundleServer(): string {
  if (!bundleDir) {
    const cache = process.env[BUILD_CACHE_ENV];
    if (cache) bundleDir = cachedServerBundleSync(cache);
    else {
      // Inside the repo, so the bundle's external native packages resolve from node_modules.
      mkdirSync(".tmp", { recursive: true });
      bundleDir = mkdtempSync(join(process.cwd(), ".tmp", "bundle-"));
      execFileSync(process.execPath, ["--import", "tsx", "build/bundle-server.ts", bundleDir], { stdio: "pipe" });
    }
  }
  return join(bundleDir, "index.mjs");
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  url: string;
  proc: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export async function startChildServer(env: Record<string, string>): Promise<ChildServer> {
  const port = await freePort();
  const proc = spawn(process.execPath, [bundleServer()], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.on("data", (d) => (out += d));
  proc.stderr!.on("data", (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    try {
      if ((await fetch(url + "/healthz")).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    proc,
    output: () => out,
    kill: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once("exit", () => resolve());
        proc.kill(signal);
      }),
  };
}
