/**
 * Development reload (`npm run dev`): polls `<distDir>/data/manifest.json` and, when the build id
 * changes, loads the new build and swaps `build.current` in one assignment, without restarting
 * the process. It waits until the browse site of the same build is written (browse/manifest.json)
 * so pages and data never disagree. A build that does not load is logged; the previous one keeps
 * serving. Production deployments follow published releases instead (watch-releases.ts).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { BuildRef } from "../deps.ts";
import type { Logger } from "../logger.ts";
import { loadArtifacts } from "../storage/artifacts.ts";

export interface DistWatcher {
  /** One check now; resolves once any swap is done. */
  check(): Promise<void>;
  stop(): void;
}

/** How long a new data build may wait for its browse site before it is swapped in anyway. */
const BROWSE_WAIT_MS = 5_000;

export function watchDist(options: { distDir: string; build: BuildRef; logger: Logger; pollMs?: number }): DistWatcher {
  const { distDir, build, logger } = options;
  let seenAt: { id: string; since: number } | null = null;
  let running: Promise<void> | null = null;

  const checkOnce = async () => {
    const id = await _readBuildId(join(distDir, "data", "manifest.json"));
    if (id === null || id === build.current.buildId) return;
    // 1. Wait (across ticks) for the browse site of this build, within a bound.
    if (seenAt?.id !== id) seenAt = { id, since: Date.now() };
    const browseId = await _readBuildId(join(distDir, "browse", "manifest.json"));
    if (browseId !== id && Date.now() - seenAt.since < BROWSE_WAIT_MS) return;
    // 2. Load and swap; requests in flight keep the build they started with.
    try {
      const next = await loadArtifacts(distDir);
      const previous = build.current.buildId;
      build.current = next;
      logger.info("build reloaded", { build_id: next.buildId, previous, browse: browseId === next.buildId });
    } catch (error) {
      logger.error("build reload failed; keeping the build in service", { build_id: id, error: String(error) });
    }
  };
  const check = () => (running ??= checkOnce().finally(() => (running = null)));
  const timer = setInterval(() => void check(), options.pollMs ?? 250);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}

// --- Internal helpers ---

async function _readBuildId(file: string): Promise<string | null> {
  try {
    return (JSON.parse(await readFile(file, "utf8")) as { build_id?: string }).build_id ?? null;
  } catch {
    // Missing or mid-write: try again on the next tick.
    return null;
  }
}
