/**
 * Public API of the content build: `buildContent` plus its types. Everything else in `build/` is
 * internal and may change without notice.
 */
import { type BuildConfig, resolveBuildConfig } from "./config.ts";
import { type BuildResult, runPipeline } from "./pipeline.ts";

export type { BuildCache } from "./cache.ts";
// --- Cache (watch mode, benchmarks) ---
export { createBuildCache } from "./cache.ts";
export type { BuildConfig, ResolvedBuildConfig } from "./config.ts";
// --- Build ---
export { defineBuildConfig, resolveBuildConfig } from "./config.ts";
export type { ContentIssue, IssueCode } from "./diagnostics.ts";

// --- Diagnostics ---
export { formatIssue, formatReport, ISSUE_CODES } from "./diagnostics.ts";
export type { BuildResult, BuildStats } from "./pipeline.ts";

/**
 * Builds `content/` into `<outDir>/data`: validates everything, emits every artifact, and
 * publishes atomically only when no fatal issue was found.
 * @example const result = await buildContent({ contentDir: "content", outDir: "dist" }); if (!result.ok) process.exitCode = 1;
 */
export async function buildContent(options: BuildConfig = {}): Promise<BuildResult> {
  return runPipeline(resolveBuildConfig(options));
}
