/**
 * `vkr publish`: uploads dist/ as an immutable release and makes it current; `--rollback` points
 * back to the previous one. The same functions and release-store configuration as
 * `npm run publish` (scripts/publish.ts).
 */
import { resolve } from "node:path";
import { resolveReleaseStore } from "../../runtime/config.ts";
import { createReleaseStore } from "../../runtime/state/releases/release-store.ts";
import {
  activateRelease,
  assertReleaseBuild,
  publishedSigningKids,
  recordRelease,
  rollbackRelease,
  uploadRelease,
} from "../../scripts/publish-release.ts";
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
      const config = resolveReleaseStore(cliIo().env) ?? { kind: "dir" as const, dir: resolve("releases") };
      cliIo().stderr(`vkr: release store ${config.kind === "dir" ? `folder ${config.dir}` : `redis (prefix ${config.prefix})`}\n`);
      const store = await createReleaseStore(config);
      try {
        if (args.rollback) {
          const pointer = await rollbackRelease(store, config);
          await recordRelease("release.rolled_back", pointer.build_id, { previous: pointer.history[0] ?? null }, cliIo().env);
          printResult(
            args.json,
            { rolled_back: true, current: pointer.build_id, history: pointer.history },
            () => `rolled back: current release is ${pointer.build_id}`,
          );
          return;
        }
        await assertReleaseBuild(resolve(args.dist), {
          allowDevBuild: args["allow-dev-build"],
          publishedKids: publishedSigningKids(cliIo().env),
        });
        const upload = await uploadRelease(store, resolve(args.dist));
        const pointer = await activateRelease(store, config, upload.buildId);
        await recordRelease(
          "release.published",
          pointer.build_id,
          { uploaded: upload.uploaded, previous: pointer.history[0] ?? null },
          cliIo().env,
        );
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
      } finally {
        await store.dispose();
      }
    }),
});
