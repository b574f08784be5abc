/**
 * `vkr build`: the content build. Text mode builds in this process with build/cli.ts's own code
 * (`buildAndReport`: the same grouped report); `--watch` runs build/cli.ts itself; `--json` builds
 * in-process with the same `buildOnce` (content, browse site, stamp) and prints the result with
 * every issue (file, line, pointer). Exit 1 on any fatal content issue.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { resolveBuildConfig } from "../../build/config.ts";
import { defineCommand } from "../command-line.ts";
import { EXIT } from "../exit-codes.ts";
import { cliIo } from "../io.ts";
import { printResult, runOperation } from "../output.ts";
import { PACKAGE_ROOT, runScript } from "../run-script.ts";

/** The build's sources: an unpacked release has none, and runScript refuses it in words. */
const BUILD_SCRIPT = "build/cli.ts";

export default defineCommand({
  meta: { name: "build" },
  args: {
    content: { type: "string", description: "Content folder (default content)" },
    out: { type: "string", description: "Output folder (default dist)" },
    watch: { type: "boolean", description: "Rebuild on every change (text output only)", default: false },
    release: { type: "boolean", description: "A build to publish: TODO placeholders and example.org sources are errors", default: false },
    json: { type: "boolean", description: "Print the build result as JSON", default: false },
  },
  async run({ args }) {
    const options = {
      ...(args.content ? { contentDir: args.content } : {}),
      ...(args.out ? { outDir: args.out } : {}),
      ...(args.release ? { release: true } : {}),
    };
    const resolved = resolveBuildConfig(options);
    // No state store: the build reads content and writes a build folder; say which ones.
    cliIo().stderr(`vkr: content ${resolved.contentDir} → build folder ${resolved.outDir} (no state store)\n`);
    // In this process, not a second one under tsx: the bundle is already loaded and transpiled.
    if (!args.json && !args.watch && existsSync(join(PACKAGE_ROOT, BUILD_SCRIPT))) {
      const { buildAndReport } = await import("../../build/build-report.ts");
      const io = cliIo();
      io.exitCode = await buildAndReport(options, io.env, {
        log: (line) => io.stdout(`${line}\n`),
        error: (line) => io.stderr(`${line}\n`),
      });
      return;
    }
    if (!args.json || args.watch) {
      const forward = [
        ...(args.content ? ["--content", args.content] : []),
        ...(args.out ? ["--out", args.out] : []),
        ...(args.watch ? ["--watch"] : []),
        ...(args.release ? ["--release"] : []),
      ];
      cliIo().exitCode = await runScript(BUILD_SCRIPT, forward);
      return;
    }
    // Loaded here, not at the top: the build's modules compile their schemas and tokenizer as they
    // load (about 1.5 s of CPU), which `--help` and `--watch` (a build/cli.ts child) never use.
    const [{ buildOnce }, { signingKeyFromEnv }] = await Promise.all([
      import("../../build/build-once.ts"),
      import("../../build/signing-key.ts"),
    ]);
    await runOperation(true, async () => {
      const { result, browsePages } = await buildOnce({ ...options, ...signingKeyFromEnv(cliIo().env, args.release) });
      printResult(
        true,
        {
          ok: result.ok,
          build_id: result.buildId ?? null,
          changed: result.changed,
          stats: result.stats,
          issues: result.issues,
          browse_pages: browsePages ?? 0,
        },
        () => "",
      );
      return result.ok ? EXIT.ok : EXIT.failure;
    });
  },
});
