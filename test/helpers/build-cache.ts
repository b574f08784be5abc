/**
 * A test run's content builds, one per distinct input, in a folder the global setup makes
 * (test/global-setup.ts). The key is the build's own input digest (content, build code, docs:
 * build/input-stamp.ts), so two files that build the same content share one build. Each build is
 * made beside its slot and renamed into it, so a reader never sees half a build; when two files
 * build the same input at once, the first rename wins and the other copy is dropped.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { digestBuildInputs } from "../../build/input-stamp.ts";

export const BUILD_ARGS = ["--import", "tsx", "build/cli.ts"];

/** The cached build of `contentDir` (built now if it is not there yet); callers copy it, never change it. */
export function cachedBuildSync(contentDir: string, cache: string): string {
  const slot = join(cache, digestBuildInputs(contentDir));
  if (existsSync(slot)) return slot;
  const temp = mkdtempSync(`${slot}.building-`);
  execFileSync(process.execPath, [...BUILD_ARGS, "--content", contentDir, "--out", temp], { stdio: "pipe" });
  return _publish(temp, slot);
}

/** The same, without blocking: the global setup builds the default fixture beside the real content. */
export async function cachedBuild(contentDir: string, cache: string): Promise<string> {
  const slot = join(cache, digestBuildInputs(contentDir));
  if (existsSync(slot)) return slot;
  const temp = mkdtempSync(`${slot}.building-`);
  await promisify(execFile)(process.execPath, [...BUILD_ARGS, "--content", contentDir, "--out", temp]);
  return _publish(temp, slot);
}

// --- Internal helpers ---

function _publish(temp: string, slot: string): string {
  try {
    renameSync(temp, slot);
  } catch (error) {
    if (!existsSync(slot)) throw error;
    rmSync(temp, { recursive: true, force: true });
  }
  return slot;
}
