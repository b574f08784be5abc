/**
 * `vkr build`: the content build. Text mode runs build/cli.ts itself (its grouped report, and
 * `--watch`); `--json` builds in-process with the same `buildContent` and browse stage and prints
 * the result with every issue (file, line, pointer). Exit 1 on any fatal content issue.
 */
import { defineCommand } from "citty";
import { writeBrowseSite } from "../../build/browse/index.ts";
import { resolveBuildConfig } from "../../build/config.ts";
import { buildContent } from "../../build/index.ts";
import { EXIT } from "../exit-codes.ts";
import { printResult, runOperation } from "../output.ts";
import { runScript } from "../run-script.ts";

export default defineCommand({
  meta: { name: "build", description: "Build content/ into dist/ (data, browse site, llms.txt); prints problems as file:line › pointer: message" },
  args: {
    content: { type: "string", description: "Content folder (default content)" },
    out: { type: "string", description: "Output folder (default dist)" },
    watch: { type: "boolean", description: "Rebuild on every change (text output only)", default: false },
    json: { type: "boolean", description: "Print the build result as JSON", default: false },
  },
  async run({ args }) {
    const options = { ...(args.content ? { contentDir: args.content } : {}), ...(args.out ? { outDir: args.out } : {}) };
    if (!args.json || args.watch) {
      const forward = [...(args.content ? ["--content", args.content] : []), ...(args.out ? ["--out", args.out] : []), ...(args.watch ? ["--watch"] : [])];
      process.exitCode = await runScript("build/cli.ts", forward);
      return;
    }
    await runOperation(true, async () => {
      const result = await buildContent(options);
      const browse = result.ok ? await writeBrowseSite(resolveBuildConfig(options).outDir) : null;
      printResult(true, { ok: result.ok, build_id: result.buildId ?? null, changed: result.changed, stats: result.stats, issues: result.issues, browse_pages: browse?.pages ?? 0 }, () => "");
      return result.ok ? EXIT.ok : EXIT.failure;
    });
  },
});
