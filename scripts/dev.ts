/**
 * `npm run dev`: the content watcher and the server together. The watcher (build/cli.ts --watch)
 * rebuilds on every save and prints problems as file:line › pointer; the server runs in this
 * process and swaps in each new build as it lands (runtime/state/releases/watch-dist.ts), so keys,
 * state and connections survive every rebuild. It prints a local key that opens every vertical
 * (scripts/dev-key.ts), so a node being written can be read and evaluated whatever its vertical. `--content` and `--out` go to the build; the
 * server reads `--out` (default DIST_DIR or dist). Ctrl-C stops both. The first build is `vkr build`
 * (the bundled CLI, scripts/bundled-build.ts: half the CPU of a tsx build); the watcher keeps its
 * build cache between saves, so it stays build/cli.ts.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, resolveRuntimeConfig } from "../runtime/config.ts";
import { createLogger } from "../runtime/shared/logger.ts";
import { startService } from "../runtime/start.ts";
import { runBundledBuild } from "./bundled-build.ts";
import { ensureDevKey } from "./dev-key.ts";

const { values } = parseArgs({ options: { content: { type: "string" }, out: { type: "string" } } });
// The server follows each build the watcher publishes (runtime/state/releases/watch-dist.ts); in dev it looks often.
const env = { RELEASE_POLL_MS: "250", ...process.env, ...(values.out ? { DIST_DIR: values.out } : {}) };
let config;
try {
  config = resolveRuntimeConfig(env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`config error: ${error.message}\n`);
  process.exit(2);
}
const buildArgs = [...(values.content ? ["--content", values.content] : []), "--out", config.distDir];

// 1. One build first, so the server has something to serve (it fails to start without dist/data).
const first = await runBundledBuild(buildArgs);
if (first !== 0) process.stderr.write("dev: the first build has problems (above); serving the previous build if there is one\n");

// 2. The server, then the watcher; the server follows what the watcher writes.
const logger = createLogger(config.logLevel);
const service = await startService(config, { logger });
const watcher = spawn(process.execPath, ["--import", "tsx", resolve("build/cli.ts"), ...buildArgs, "--watch"], { stdio: "inherit" });
// 3. A local key that opens every vertical, to read and evaluate the node being written (scripts/dev-key.ts).
const { key } = await ensureDevKey(service.deps);
process.stdout.write(
  `dev: serving ${service.url}/browse; edit content/ and reload the page\n` +
    `dev: local key for every vertical (this dev store only; paste it at ${service.url}/browse/key):\n` +
    `  export KEY=${key}\n` +
    `  curl -s -X POST ${service.url}/api/evaluate -H "X-Service-Key: $KEY" -H 'content-type: application/json' -d '{"vertical":"<vertical>","node":"<node-id>","facts":{}}'\n`,
);

const stop = () => {
  watcher.kill("SIGTERM");
  void service.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
