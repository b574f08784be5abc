/**
 * Builds a content folder into a fresh dist folder with the real build CLI (a child process).
 * Within a test run the same content is built once (test/helpers/build-cache.ts; the global setup
 * pre-builds the default fixture) and each caller gets a private copy, free to change, as if it
 * had built it itself.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BUILD_ARGS, BUILD_CACHE_ENV, BUILD_TIMEOUT_MS, cachedBuildSync, copyBuild } from "./build-cache.ts";

/** With `outDir`, builds into that folder, over any build already there (as `npm run build:content` does). */
export function buildContentTo(contentDir: string, outDir?: string): string {
  const cache = process.env[BUILD_CACHE_ENV];
  if (outDir !== undefined || !cache) {
    const out = outDir ?? mkdtempSync(join(tmpdir(), "vkr-dist-"));
    execFileSync(process.execPath, [...BUILD_ARGS, "--content", contentDir, "--out", out], { stdio: "pipe", timeout: BUILD_TIMEOUT_MS });
    return out;
  }
  return copyBuild(cachedBuildSync(contentDir, cache));
}

/**
 * The real content's development build in `dist/`, which the global setup made (or found
 * current) before any file ran. Suites that serve the real content read it there, never change
 * it: a build of their own would build the same content a second time (about 10 s of CPU).
 */
export function realContentDist(): string {
  return resolve("dist");
}
