/**
 * What a checking build (`write: false`) of the real content finds, for the content suites that
 * judge the content rather than the build: several of them ask the same build the same question
 * (a release build today, say), and each such build of the real content costs seconds of CPU. The
 * answer (`ok` and the issues) is kept in the test build cache (test/helpers/build-cache.ts) under
 * the build's inputs, the toolchain, the options and the day review dates are judged by, so a
 * suite asking of an unchanged tree what another suite or an earlier run asked gets that build's
 * answer (and one asking while another builds the same answer waits for it: `cachedSlot`); any
 * changed input, option or day is a new build.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ContentIssue } from "../../build/diagnostics.ts";
import { buildContent } from "../../build/index.ts";
import { REPO_ROOT } from "../build/_fixtures.ts";
import { BUILD_CACHE_DIR, BUILD_CACHE_ENV, cachedSlot, checkSlot } from "./build-cache.ts";

export interface ContentCheck {
  ok: boolean;
  issues: ContentIssue[];
}

/** The real content, checked as a release (`release`) or development build, as of `today` (default: today, UTC). */
export async function checkRealContent(options: { release?: boolean; today?: string } = {}): Promise<ContentCheck> {
  const release = options.release === true;
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const cache = resolve(REPO_ROOT, process.env[BUILD_CACHE_ENV] ?? BUILD_CACHE_DIR);
  const contentDir = join(REPO_ROOT, "content");
  const slot = await cachedSlot(checkSlot(contentDir, cache, JSON.stringify({ release, today })), async (temp) => {
    const result = await buildContent({
      contentDir,
      outDir: join(REPO_ROOT, "dist/unused"),
      rootDir: REPO_ROOT,
      write: false,
      previous: false,
      release,
      today,
    });
    writeFileSync(temp, JSON.stringify({ ok: result.ok, issues: result.issues } satisfies ContentCheck));
  });
  return JSON.parse(readFileSync(slot, "utf8")) as ContentCheck;
}
