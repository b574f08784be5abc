/**
 * Once per test run, before any file: builds the real content into `dist/` (e2e, contract and
 * content tests read it), so parallel files never race on building it, and builds the default
 * fixture content (test/helpers/fixture-content.ts) into the run's build cache, from which
 * `buildContentTo` copies instead of building the same content again in every file, and makes
 * sure the CLI bundle is current.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUILD_ARGS, BUILD_CACHE_ENV, cachedBuild, serverBundleSlot } from "./helpers/build-cache.ts";
import { writeFixtureContent } from "./helpers/fixture-content.ts";

export default async function setup(): Promise<() => void> {
  const cache = mkdtempSync(join(tmpdir(), "vkr-build-cache-"));
  // The workers are forked after this and inherit it; an environment variable rather than vitest's
  // provide/inject, because the bench imports test/helpers/child-server.ts outside vitest.
  process.env[BUILD_CACHE_ENV] = cache;
  const fixture = writeFixtureContent();
  // `vkr --help` bundles the CLI (bin/vkr.mjs) when it is missing or stale, first: the builds run
  // on that bundle, and so do the CLI suites' first commands, which must not each bundle it again.
  await _run(["bin/vkr.mjs", "--help"], "bundling the CLI");
  // Then the two builds side by side on two cores.
  await Promise.all([process.env.VKR_SKIP_GLOBAL_BUILD ? null : _run(BUILD_ARGS, "building the content"), cachedBuild(fixture, cache)]);
  rmSync(fixture, { recursive: true, force: true });
  return () => {
    rmSync(cache, { recursive: true, force: true });
    rmSync(serverBundleSlot(cache), { recursive: true, force: true });
  };
}

// --- Internal helpers ---

function _run(args: string[], what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (exit ${code})`))));
  });
}
