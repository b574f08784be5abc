/**
 * `npx tsx build/cli.ts [--content dir] [--out dir] [--watch | --release]`: builds once (exit 1 on
 * any fatal issue; `--release` also refuses authoring placeholders) or watches `content/` and
 * rebuilds on change, reporting problems without exiting.
 */

import { parseArgs } from "node:util";
import { writeBrowseSite } from "./browse/index.ts";
import { buildAndReport, buildReport, withSigningKey } from "./build-report.ts";
import { resolveBuildConfig } from "./config.ts";
import { type BuildConfig, createBuildCache } from "./index.ts";
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

if (values.watch) {
  if (!withSigningKey(options)) process.exit(1);
  watchContent({ ...options, cache: createBuildCache() }, (result) => {
    console.log(`\n${buildReport(result)}`);
    // Regenerate the browse site after every good build; a running `npm run dev` server waits for it before reloading.
    if (result.ok)
      writeBrowseSite(resolveBuildConfig(options).outDir).catch((error: unknown) => console.error(`browse site failed: ${String(error)}`));
  });
} else {
  process.exitCode = await buildAndReport(options);
}
