/**
 * Setup file of the unit tier (`npm run test:unit`, vitest.config.ts): that tier runs without
 * Redis and without a browser, so a test that reaches for either fails here with a message that
 * says where the file belongs, instead of hanging on a connection or skipping quietly. It refuses:
 * - an ioredis client (single node or Cluster) connecting from the test process;
 * - a child process of redis-server, redis-cli, redis-sentinel or Chromium (playwright-core
 *   launches Chromium through child_process too);
 * - a child process (such as a bundled server) given a Redis locator in its environment.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { basename } from "node:path";
import { promisify } from "node:util";
import { Cluster, Redis } from "ioredis";

const WHERE = "the unit tier (npm run test:unit) runs without Redis or a browser: list this file in REDIS or BROWSER in test/tiers.ts";
const COMMANDS = new Set(["redis-server", "redis-cli", "redis-sentinel", "chromium", "chromium-browser", "chrome", "google-chrome"]);
const LOCATORS = ["REDIS_URL", "RELEASE_REDIS_URL", "REDIS_CLUSTER_NODES", "REDIS_SENTINELS"];

export class TierError extends Error {
  override name = "TierError";
}

function refuse(what: string): never {
  throw new TierError(`${what}: ${WHERE}`);
}

// ioredis connects from its constructor unless lazyConnect is set: throwing here fails the
// `new Redis(...)` (or the explicit connect()) at once.
Redis.prototype.connect = () => refuse("a Redis connection");
Cluster.prototype.connect = () => refuse("a Redis Cluster connection");

function checkChild(file: unknown, options: unknown): void {
  const command = typeof file === "string" ? basename(file.trim().split(/\s+/)[0] ?? "") : "";
  if (COMMANDS.has(command)) refuse(`starting ${command}`);
  const env = (options as { env?: Record<string, string | undefined> } | undefined)?.env;
  const locator = env && LOCATORS.find((name) => env[name]);
  if (locator) refuse(`a child process with ${locator}`);
}

/** The options object of a child_process call: the first plain object after the command. */
function optionsOf(args: unknown[]): unknown {
  return args.find((a) => a !== null && typeof a === "object" && !Array.isArray(a));
}

// The unit tier runs without isolation (vitest.config.ts): its files share a worker process, and
// this setup file runs before each of them. The guards are installed once per process, not wrapped
// again around themselves for every file.
const INSTALLED = Symbol.for("vkr.unit-tier.guards");
const installed = (globalThis as Record<symbol, unknown>)[INSTALLED] === true;
(globalThis as Record<symbol, unknown>)[INSTALLED] = true;

for (const name of installed ? [] : (["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync", "fork"] as const)) {
  const original = childProcess[name] as (...args: unknown[]) => unknown;
  const guarded = function (this: unknown, file: unknown, ...rest: unknown[]) {
    checkChild(file, optionsOf(rest));
    return original.call(this, file, ...rest);
  };
  // `promisify(execFile)` resolves { stdout, stderr } through this hook: guard it too.
  const custom = (original as unknown as Record<symbol, ((...args: unknown[]) => unknown) | undefined>)[promisify.custom];
  if (custom)
    Object.defineProperty(guarded, promisify.custom, {
      value: async (file: unknown, ...rest: unknown[]) => {
        checkChild(file, optionsOf(rest));
        return custom(file, ...rest);
      },
    });
  (childProcess as unknown as Record<string, unknown>)[name] = guarded;
}
// The named ESM exports of a builtin are copies: refresh them so `import { spawn }` sees the guard.
syncBuiltinESMExports();

// A Redis named in the shell that runs the tier is not inherited by the children of its tests.
for (const name of LOCATORS) delete process.env[name];
