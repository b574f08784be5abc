/**
 * Builds a content folder's data in the test's own process (build/index.ts), for a test that
 * serves or reads a build but does not test the build CLI. Much cheaper than the CLI in a child
 * (test/helpers/build-fixture.ts), which pays a fresh Node and writes the browse site too: use
 * that one when the content is the default fixture (built once per run by the global setup) or
 * when what is tested needs the browse site or the CLI itself. A plain build into a new folder is
 * kept in the test build cache (test/helpers/build-cache.ts) under its inputs, so an unchanged
 * fixture is built once, not once per run; the caller gets a copy of its own.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type BuildConfig, buildContent } from "../../build/index.ts";
import { BUILD_CACHE_DIR, BUILD_CACHE_ENV, cachedSlot, copyBuild, dataSlot } from "./build-cache.ts";

/** With `outDir`, builds over the build already there and publishes by swapping `data`, as the CLI does. */
export async function buildDataInProcess(
  contentDir: string,
  outDir?: string,
  options: Omit<BuildConfig, "contentDir" | "outDir"> = {},
): Promise<string> {
  if (outDir === undefined && Object.keys(options).length === 0) return copyBuild(await _cachedData(contentDir));
  return _build(contentDir, outDir ?? mkdtempSync(join(tmpdir(), "vkr-dist-")), options);
}

// --- Internal helpers ---

async function _build(contentDir: string, outDir: string, options: Omit<BuildConfig, "contentDir" | "outDir">): Promise<string> {
  const result = await buildContent({ ...options, contentDir, outDir });
  if (!result.ok) throw new Error(`content build failed:\n${result.issues.map((i) => JSON.stringify(i)).join("\n")}`);
  return outDir;
}

/** The cached build of `contentDir` (another file's build of the same inputs is the same). */
function _cachedData(contentDir: string): Promise<string> {
  const cache = resolve(process.env[BUILD_CACHE_ENV] ?? BUILD_CACHE_DIR);
  return cachedSlot(dataSlot(contentDir, cache), async (temp) => {
    mkdirSync(temp);
    await _build(contentDir, temp, {});
  });
}
