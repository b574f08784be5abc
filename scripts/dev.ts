/**
 * `npm run dev`: the content watcher and the server together. The watcher (build/cli.ts --watch)
 * rebuilds on every save and prints problems as file:line › pointer; the server runs in this
 * process and swaps in each new build as it lands (runtime/releases/watch-dist.ts), so keys,
 * state and connections survive every rebuild. `--content` and `--out` go to the build; the
 * server reads `--out` (default DIST_DIR or dist). Ctrl-C stops both.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, resolveRuntimeConfig } from "../runtime/config.ts";
import { createLogger } from "../runtime/logger.ts";
import { startService } from "../runtime/start.ts";

const { values } = parseArgs({ options: { content: { type: "string" }, out: { type: "string" } } });
// The server follows each build the watcher publishes (runtime/releases/watch-dist.ts); in dev it looks often.
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
const tsxBuild = (extra: string[]) => spawn(process.execPath, ["--import", "tsx", resolve("build/cli.ts"), ...buildArgs, ...extra], { stdio: "inherit" });

// 1. One build first, so the server has something to serve (it fails to start without dist/data).
const first = await new Promise<number>((done) => tsxBuild([]).once("exit", (code) => done(code ?? 1)));
if (first !== 0) process.stderr.write("dev: the first build has problems (above); serving the previous build if there is one\n");

// 2. The server, then the watcher; the server follows what the watcher writes.
const logger = createLogger(config.logLevel);
const service = await startService(config, { logger });
const watcher = tsxBuild(["--watch"]);
process.stdout.write(`dev: serving ${service.url}/browse; edit content/ and reload the page\n`);

const stop = () => {
  watcher.kill("SIGTERM");
  void service.close().then(() => process.exit(0));
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
