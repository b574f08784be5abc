/**
 * `vkr publish`: uploads dist/ as an immutable release and makes it current; `--rollback` points
 * back to the previous one. The same functions and release-store configuration as
 * `npm run publish` (scripts/publish.ts).
 */
import { describeReleaseStore, publishRelease, publishStore } from "../../scripts/publish-release.ts";
import { defineCommand } from "../command-line.ts";
import { cliIo } from "../io.ts";
import { printResult, runOperation } from "../output.ts";

export default defineCommand({
  meta: { name: "publish" },
  args: {
    dist: { type: "string", description: "Build folder to publish (default dist)", default: "dist" },
    rollback: { type: "boolean", description: "Make the previous release current again", default: false },
    "allow-dev-build": {
      type: "boolean",
      description: "Publish a build made without --release (placeholders and drafts allowed)",
      default: false,
    },
    json: { type: "boolean", description: "Print JSON instead of text", default: false },
  },
  run: ({ args }) =>
    runOperation(args.json, async () => {
      const env = cliIo().env;
      const config = publishStore(env);
      cliIo().stderr(`vkr: release store ${describeReleaseStore(config)}\n`);
      const outcome = await publishRelease(config, {
        dist: args.dist,
        rollback: args.rollback,
        allowDevBuild: args["allow-dev-build"],
        env,
      });
      if (outcome.kind === "rolled_back") {
        const { pointer } = outcome;
        printResult(
          args.json,
          { rolled_back: true, current: pointer.build_id, history: pointer.history },
          () => `rolled back: current release is ${pointer.build_id}`,
        );
        return;
      }
      const { upload, pointer } = outcome;
      printResult(
        args.json,
        {
          build_id: upload.buildId,
          uploaded: upload.uploaded,
          files: upload.files,
          current: pointer.build_id,
          previous: pointer.history[0] ?? null,
        },
        () =>
          `${upload.uploaded ? "uploaded" : "already present:"} release ${upload.buildId} (${upload.files} files)\ncurrent release is ${pointer.build_id}${pointer.history[0] ? ` (previous ${pointer.history[0]})` : ""}`,
      );
    }),
});
