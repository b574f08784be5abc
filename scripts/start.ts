/**
 * `npm start`: builds the content only when its inputs changed since the build in DIST_DIR (a
 * digest of content/ and the build code against the stamp the build left, never file times),
 * bundles the runtime when it is missing or older than runtime/, then runs the bundled server in
 * this process group (signals reach it directly). A content build with errors prints its report
 * and one paragraph, and the last good build keeps serving; only with no build at all does start
 * give up. `--content <dir>` builds another content folder. The build is `vkr build` (the bundled
 * CLI, scripts/bundled-build.ts: half the CPU of a tsx build); the bundling runs in this process.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { digestBuildInputs, readInputStamp } from "../build/input-stamp.ts";
import { ConfigError, resolveRuntimeConfig } from "../runtime/config.ts";
import { runBundledBuild } from "./bundled-build.ts";

const { values } = parseArgs({ options: { content: { type: "string", default: "content" } } });
let distDir: string;
try {
  distDir = resolveRuntimeConfig(process.env).distDir;
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`config error: ${error.message}\n`);
  process.exit(2);
}

// 1. Content: build when the inputs differ from those of the build in service.
const served = _servedBuild(distDir);
const stamp = readInputStamp(distDir);
// The inputs are digested only when the stamp could spare the build (the build digests them again).
if (!served || stamp?.build_id !== served.build_id || stamp.input_digest !== digestBuildInputs(values.content)) {
  const built = (await runBundledBuild(["--content", values.content, "--out", distDir])) === 0;
  if (!built) {
    const last = _servedBuild(distDir);
    if (!last) {
      process.stderr.write(
        `\nstart: the content build failed (problems above) and ${distDir} holds no earlier build to serve, so the server was not started. Fix the files named above and run npm start again.\n`,
      );
      process.exit(1);
    }
    process.stderr.write(
      `\nstart: the content has problems (listed above), so it was not built; the server starts with the last good build, ${last.build_id}` +
        `${last.content_date ? ` (content of ${last.content_date.slice(0, 10)})` : ""}, which is intact. ` +
        `Fix the files named above and run npm start again, or run npm run dev to rebuild on every save.\n\n`,
    );
  }
}

// 2. Runtime bundle: rebuilt when the runtime's sources are newer (they are not content).
if (_mtime("dist/server/index.mjs") < Math.max(_newest("runtime"), _mtime("build/bundle-server.ts"))) {
  if (!(await _bundleServer())) {
    process.stderr.write("\nstart: bundling the runtime failed (see above); the server was not started.\n");
    process.exit(1);
  }
}

const child = spawn(process.execPath, ["--enable-source-maps", "dist/server/index.mjs"], {
  stdio: "inherit",
  env: { ...process.env, DIST_DIR: distDir },
});
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

// --- Internal helpers ---

/** The build `<distDir>/data` points at, or null when there is none that parses. */
function _servedBuild(dir: string): { build_id: string; content_date?: string } | null {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, "data", "manifest.json"), "utf8")) as { build_id?: unknown; content_date?: unknown };
    if (typeof manifest.build_id !== "string") return null;
    return { build_id: manifest.build_id, ...(typeof manifest.content_date === "string" ? { content_date: manifest.content_date } : {}) };
  } catch {
    return null;
  }
}

/**
 * Bundles the runtime into dist/server/, printing what `npm run build:server` prints; false (the
 * error printed) on failure. In this process: a tsx child cost a Node and tsx start for the same call.
 */
async function _bundleServer(): Promise<boolean> {
  const { bundleServer } = await import("../build/bundle-server.ts");
  try {
    const bytes = await bundleServer("dist/server");
    process.stdout.write(`bundled runtime/server.ts → dist/server/index.mjs (${Math.round(bytes / 1024)} KiB incl. source map)\n`);
    return true;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return false;
  }
}

function _newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let max = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? _newest(p) : statSync(p).mtimeMs);
  }
  return max;
}

function _mtime(file: string): number {
  return existsSync(file) ? statSync(file).mtimeMs : 0;
}
