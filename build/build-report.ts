/**
 * One build from the command line, as `tsx build/cli.ts` and `vkr build` both run it: the signing
 * key from the environment, the build (build-once.ts), and the text report (diagnostics grouped
 * by file, then a one-line summary). `vkr build` runs it in its own bundled process rather than
 * starting build/cli.ts under tsx, which cost a second process and its TypeScript transpiling.
 */
import { buildOnce } from "./build-once.ts";
import { formatReport } from "./diagnostics.ts";
import type { BuildConfig, BuildResult } from "./index.ts";
import { signingKeyFromEnv } from "./signing-key.ts";

/**
 * Where a command's lines go: the console for build/cli.ts, the run's streams for `vkr build`
 * (cli/io.ts), stdout and stderr for `npm run publish` (scripts/publish-command.ts).
 */
export interface LineOutput {
  log(line: string): void;
  error(line: string): void;
}

const CONSOLE: LineOutput = { log: (line) => console.log(line), error: (line) => console.error(line) };

/**
 * Adds the signing key from the environment to `options`; false, with the reason printed, when the
 * key is refused (a release build without one, or one that does not parse).
 */
export function withSigningKey(options: BuildConfig, env: NodeJS.ProcessEnv = process.env, out: LineOutput = CONSOLE): boolean {
  try {
    Object.assign(options, signingKeyFromEnv(env, options.release === true));
    return true;
  } catch (error) {
    out.error(`build refused: ${error instanceof Error ? error.message : String(error)}`);
    return false;
  }
}

/**
 * Builds once and prints the report to `out`; resolves to the exit code (1 on any fatal issue or a
 * refused key). `env` holds the signing key; `vkr build` passes the environment and the streams of
 * its run (cli/io.ts).
 */
export async function buildAndReport(
  options: BuildConfig,
  env: NodeJS.ProcessEnv = process.env,
  out: LineOutput = CONSOLE,
): Promise<number> {
  if (!withSigningKey(options, env, out)) return 1;
  try {
    // The browse site and llms.txt are generated from the published data (build/browse/).
    const { result, browsePages } = await buildOnce(options, (built) => out.log(buildReport(built)));
    if (browsePages !== null) out.log(`browse site: ${browsePages} pages`);
    return result.ok ? 0 : 1;
  } catch (error) {
    out.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** Diagnostics grouped by file, then a one-line summary. */
export function buildReport(result: BuildResult): string {
  const { nodes, verticals, durationMs, leanRatio } = result.stats;
  const fatal = result.issues.filter((i) => i.fatal).length;
  const warnings = result.issues.length - fatal;
  const report = formatReport(result.issues);
  const outcome = result.ok
    ? `built ${nodes} nodes in ${verticals} verticals in ${durationMs} ms; mean lean/full size ${(leanRatio * 100).toFixed(1)}%; ` +
      `build ${result.buildId}${result.changed ? "" : " (unchanged)"}`
    : `build failed: ${fatal} error(s); nothing was written, the previous build is untouched`;
  return `${report ? `${report}\n\n` : ""}${outcome}${warnings ? `; ${warnings} warning(s)` : ""}`;
}
