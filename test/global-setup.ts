/**
 * Once per test run, before any file: builds the real content into `dist/` (e2e, contract and
 * content tests read it), so parallel files never race on building it, and builds the default
 * fixture content (test/helpers/fixture-content.ts) into the run's build cache, from which
 * `buildContentTo` copies instead of building the same content again in every file.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { BUILD_ARGS, cachedBuild } from "./helpers/build-cache.ts";
import { writeFixtureContent } from "./helpers/fixture-content.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** This run's content builds, one per input digest (test/helpers/build-cache.ts). */
    buildCache: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const cache = mkdtempSync(join(tmpdir(), "vkr-build-cache-"));
  project.provide("buildCache", cache);
  const fixture = writeFixtureContent();
  // Two processes, so on two cores the builds run side by side.
  await Promise.all([process.env.VKR_SKIP_GLOBAL_BUILD ? null : _buildRealContent(), cachedBuild(fixture, cache)]);
  rmSync(fixture, { recursive: true, force: true });
  return () => rmSync(cache, { recursive: true, force: true });
}

// --- Internal helpers ---

function _buildRealContent(): Promise<void> {
  return new Promise((resolve, reject) => {
    const build = spawn(process.execPath, BUILD_ARGS, { stdio: "inherit" });
    build.once("error", reject);
    build.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`building the content failed (exit ${code})`))));
  });
}
