/**
 * Once per test run, before any file: makes sure the real content is built in `dist/` (e2e,
 * contract and content tests read it), so parallel files never race on building it; builds the
 * default fixture content (test/helpers/fixture-content.ts) into the build cache, from which
 * `buildContentTo` copies instead of building the same content again in every file; bundles the
 * server the child-server suites run (test/helpers/child-server.ts) into the same cache; and makes
 * sure the CLI bundle is current. The real content is built only when its inputs differ from the
 * build in `dist/` (the check `npm start` makes, build/input-stamp.ts); the cache is kept between
 * runs (test/helpers/build-cache.ts), so a run after an unchanged one builds nothing.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { digestBuildInputs, readInputStamp } from "../build/input-stamp.ts";
import { BUILD_ARGS, BUILD_CACHE_DIR, BUILD_CACHE_ENV, cachedBuild, cachedServerBundle, pruneCache } from "./helpers/build-cache.ts";
import { writeFixtureContent } from "./helpers/fixture-content.ts";

export default async function setup(): Promise<() => void> {
  const cache = join(process.cwd(), BUILD_CACHE_DIR);
  mkdirSync(cache, { recursive: true });
  // The workers are forked after this and inherit it; an environment variable rather than vitest's
  // provide/inject, because the bench imports test/helpers/child-server.ts outside vitest.
  process.env[BUILD_CACHE_ENV] = cache;
  const fixture = writeFixtureContent();
  // `vkr --help` bundles the CLI (bin/vkr.mjs) when it is missing or stale, first: the builds run
  // on that bundle, and so do the CLI suites' first commands, which must not each bundle it again.
  // The server bundle that child-server suites run needs no CLI, so it is made meanwhile on the
  // other core (a cold cache only: otherwise it is found; without it the first such suite would
  // make it, blocking its worker). Then the two builds side by side on two cores (each only when
  // its inputs changed).
  const builds = _run(["bin/vkr.mjs", "--help"], "bundling the CLI").then(() =>
    Promise.all([
      process.env.VKR_SKIP_GLOBAL_BUILD || _distIsCurrent("dist", "content") ? null : _run(BUILD_ARGS, "building the content"),
      cachedBuild(fixture, cache),
    ]),
  );
  await Promise.all([builds, cachedServerBundle(cache)]);
  rmSync(fixture, { recursive: true, force: true });
  return () => pruneCache(cache);
}

// --- Internal helpers ---

/** `dist` holds a development build of exactly these inputs (its stamp and its manifest agree). */
function _distIsCurrent(dist: string, content: string): boolean {
  const stamp = readInputStamp(dist);
  if (!stamp || stamp.release) return false;
  try {
    const manifest = JSON.parse(readFileSync(join(dist, "data", "manifest.json"), "utf8")) as { build_id?: unknown };
    return manifest.build_id === stamp.build_id && stamp.input_digest === digestBuildInputs(content);
  } catch {
    return false;
  }
}

function _run(args: string[], what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (exit ${code})`))));
  });
}
