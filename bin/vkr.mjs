#!/usr/bin/env node
// The `vkr` bin: runs the CLI bundled by build/bundle-cli.ts (dist/cli/vkr.mjs), so a command
// starts without compiling TypeScript. A clean clone has no bundle yet, and an edited source makes
// it stale: then it is bundled once (esbuild through tsx, both installed by `npm ci`), and every
// later run starts from the bundle. `npm run build` bundles it too. A release install
// (`npm run release`) carries the bundle but not the sources, nor tsx and esbuild: with no
// cli/main.ts beside it there is nothing to be stale against, so the bundle runs as it is.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = join(root, "dist", "cli");
const entry = join(dir, "vkr.mjs");

const sources = existsSync(join(root, "cli", "main.ts"));
if (!sources && !existsSync(entry)) {
  process.stderr.write(`vkr: ${entry} is missing and there are no sources to bundle it from; unpack the release again.\n`);
  process.exit(1);
}
if (sources && !_fresh()) {
  process.stderr.write(
    existsSync(entry) ? "vkr: sources changed since the CLI was bundled; bundling it again\n" : "vkr: bundling the CLI once (dist/cli/)\n",
  );
  const bundled = spawnSync(process.execPath, ["--import", "tsx", join(root, "build", "bundle-cli.ts"), dir], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (bundled.status !== 0) {
    process.stderr.write(
      `vkr: could not bundle the CLI${bundled.error ? ` (${bundled.error.message})` : ""}; run "npm ci" (it installs esbuild and tsx), then "npm run build".\n`,
    );
    process.exit(1);
  }
}
await import(pathToFileURL(entry).href);

/** The bundle exists and is newer than every project file it was made from (its inputs.json). */
function _fresh() {
  let built;
  let inputs;
  try {
    built = statSync(entry).mtimeMs;
    inputs = JSON.parse(readFileSync(join(dir, "inputs.json"), "utf8")).inputs;
  } catch {
    return false;
  }
  for (const file of inputs) {
    let changed;
    try {
      changed = statSync(join(root, file)).mtimeMs;
    } catch {
      return false; // a source was removed or renamed
    }
    if (changed > built) return false;
  }
  return true;
}
