/**
 * One build as `build/cli.ts` and `vkr build --json` run it: the content, then the browse site
 * from the published data, then the input stamp. The stamp goes last, so it only ever names a
 * complete build: `npm start` skips building when the stamp matches, and `vkr publish` reads its
 * release flag.
 */
import { writeBrowseSite } from "./browse/index.ts";
import { resolveBuildConfig } from "./config.ts";
import { type BuildConfig, type BuildResult, buildContent } from "./index.ts";
import { digestBuildInputs, writeInputStamp } from "./input-stamp.ts";

/** `onContentBuilt` sees the content result before the browse site is written (to report it first). */
export async function buildOnce(
  options: BuildConfig,
  onContentBuilt: (result: BuildResult) => void = () => {},
): Promise<{ result: BuildResult; browsePages: number | null }> {
  const resolved = resolveBuildConfig(options);
  // Digest the inputs before building: an edit made during the build makes the stamp stale, never wrong.
  const inputDigest = digestBuildInputs(resolved.contentDir);
  const result = await buildContent(options);
  onContentBuilt(result);
  if (!result.ok) return { result, browsePages: null };
  const browse = await writeBrowseSite(resolved.outDir);
  if (result.buildId) writeInputStamp(resolved.outDir, { input_digest: inputDigest, build_id: result.buildId, release: resolved.release });
  return { result, browsePages: browse.pages };
}
