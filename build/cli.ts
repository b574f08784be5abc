/**
 * `npx tsx build/cli.ts [--content dir] [--out dir] [--watch | --release]`: builds once (exit 1 on
 * any fatal issue; `--release` also refuses authoring placeholders) or watches `content/` and
 * rebuilds on change, reporting problems without exiting.
 */

import { parseArgs } from "node:util";
import { writeBrowseSite } from "./browse/index.ts";
import { buildOnce } from "./build-once.ts";
import { resolveBuildConfig } from "./config.ts";
import { type BuildConfig, type BuildResult, createBuildCache, formatReport } from "./index.ts";
import { signingKeyFromEnv } from "./signing-key.ts";
import { watchContent } from "./watch.ts";

const { values } = parseArgs({
  options: {
    content: { type: "string" },
    out: { type: "string" },
    watch: { type: "boolean", default: false },
    release: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log("usage: tsx build/cli.ts [--content dir] [--out dir] [--watch | --release]");
  process.exit(0);
}

const options: BuildConfig = {
  ...(values.content ? { contentDir: values.content } : {}),
  ...(values.out ? { outDir: values.out } : {}),
  // A build to publish: TODO placeholders and example.org sources are errors, not warnings.
  ...(values.release ? { release: true } : {}),
};
try {
  Object.assign(options, signingKeyFromEnv(process.env, values.release === true));
} catch (error) {
  console.error(`build refused: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

if (values.watch) {
  watchContent({ ...options, cache: createBuildCache() }, (result) => {
    console.log(`\n${toReport(result)}`);
    // Regenerate the browse site after every good build; a running `npm run dev` server waits for it before reloading.
    if (result.ok)
      writeBrowseSite(resolveBuildConfig(options).outDir).catch((error: unknown) => console.error(`browse site failed: ${String(error)}`));
  });
} else {
  try {
    // The browse site and llms.txt are generated from the published data (build/browse/).
    const { result, browsePages } = await buildOnce(options, (built) => console.log(toReport(built)));
    if (browsePages !== null) console.log(`browse site: ${browsePages} pages`);
    process.exitCode = result.ok ? 0 : 1;
  } catch (error) {
    console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}

/** Diagnostics grouped by file, then a one-line summary. */
function toReport(result: BuildResult): string {
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
