/**
 * Follows the build published in `<distDir>` (`npm start`, `npm run dev`, `vkr serve` without a
 * release store): every `pollMs` it resolves the `<distDir>/data` link and, when it points at
 * another build folder, loads that build and swaps `build.current` in one assignment, without
 * restarting the process. The loaded build reads only from its own folder (loadArtifacts), so
 * a request sees one build: manifest, ETags and bytes. It waits until the browse site of the same
 * build is written (browse/manifest.json) so pages and data agree. A build that does not load is
 * logged once; the previous one keeps serving. Deployments with a release store follow published
 * releases instead (watch-releases.ts).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import { loadArtifacts, resolveBuildDir } from "./artifacts.ts";
import type { BuildRef } from "./build-ref.ts";

export interface DistWatcher {
  /** One check now; resolves once any swap is done. */
  check(): Promise<void>;
  stop(): void;
}

/** How long a new data build may wait for its browse site before it is swapped in anyway. */
const BROWSE_WAIT_MS = 5_000;

export function watchDist(options: {
  distDir: string;
  build: BuildRef;
  logger: Logger;
  pollMs?: number;
  cacheBytes?: number;
}): DistWatcher {
  const { distDir, build, logger } = options;
  let seenAt: { dir: string; since: number } | null = null;
  let refused: string | null = null;
  let running: Promise<void> | null = null;

  const checkOnce = async () => {
    const dir = await resolveBuildDir(distDir).catch(() => null);
    // Missing (mid-publish of an old layout) or unchanged: nothing to do this tick.
    if (dir === null || dir === build.current.dir || dir === refused) return;
    // 1. Wait (across ticks) for the browse site of this build, within a bound.
    const id = await _readBuildId(join(dir, "manifest.json"));
    if (id === null) return;
    if (seenAt?.dir !== dir) seenAt = { dir, since: Date.now() };
    const browseId = await _readBuildId(join(distDir, "browse", "manifest.json"));
    if (browseId !== id && Date.now() - seenAt.since < BROWSE_WAIT_MS) return;
    // 2. Load from that folder and swap; requests in flight keep the build they started with.
    try {
      const next = await loadArtifacts(distDir, { cacheBytes: options.cacheBytes });
      if (next.dir !== dir) return; // published again meanwhile: the next tick takes the newer one
      const previous = build.current.buildId;
      build.current = next;
      refused = null;
      logger.info("build reloaded", { build_id: next.buildId, previous, browse: browseId === next.buildId });
    } catch (error) {
      refused = dir;
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
