/**
 * Read-only access to the browse site the build wrote to `<distDir>/browse`: pages are read on
 * first use and kept per build (a new build in service starts with an empty cache), so the runtime
 * never renders HTML itself.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import type { Artifacts } from "../../state/releases/artifacts.ts";

export interface BrowseSite {
  /** The file's text, or null when the build wrote no such file. */
  read(build: Artifacts, rel: string): Promise<string | null>;
}

/** Only paths the build writes: slugs and ids are kebab-case, so nothing can climb out of the folder. */
export const SITE_PATH_RE = /^(?:[a-z0-9][a-z0-9-]*\/(?:nodes\/)?)?[A-Za-z0-9][\w.-]*\.(?:html|txt|md)$/;

export function createBrowseSite(distDir: string, logger: Logger): BrowseSite {
  const perBuild = new WeakMap<Artifacts, Map<string, Promise<string | null>>>();
  return {
    read(build, rel) {
      if (!SITE_PATH_RE.test(rel) || rel.includes("../..")) return Promise.resolve(null);
      let files = perBuild.get(build);
      if (!files) {
        perBuild.set(build, (files = new Map()));
        void _warnIfOtherBuild(distDir, build, logger);
      }
      let hit = files.get(rel);
      if (!hit) {
        hit = readFile(join(distDir, "browse", rel), "utf8").catch((error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return null;
          throw error;
        });
        files.set(rel, hit);
      }
      return hit;
    },
  };
}

// --- Internal helpers ---

/**
 * The pages come from `<distDir>/browse`; a build swapped in from the release store (which carries
 * data only) leaves them at the build they were generated from. Said once per build, in the log.
 */
async function _warnIfOtherBuild(distDir: string, build: Artifacts, logger: Logger): Promise<void> {
  const site = await readFile(join(distDir, "browse", "manifest.json"), "utf8").then(
    (t) => (JSON.parse(t) as { build_id?: string }).build_id ?? null,
    () => null,
  );
  if (site !== build.buildId)
    logger.warn("browse pages are not of the build in service", { browse_build_id: site, build_id: build.buildId });
}
