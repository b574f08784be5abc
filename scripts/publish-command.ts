/**
 * `npm run publish`'s command line as a function (scripts/publish.ts is its caller): parses
 * `argv`, publishes or rolls back with the release store `env` names, prints to `out`, and returns
 * the exit code (1 on any failure, with one line saying why). A function, so the publication
 * suites run most cases in their own process; one `npm run publish` child proves the wiring.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { resolveReleaseStore } from "../runtime/config.ts";
import { createReleaseStore } from "../runtime/state/releases/release-store.ts";
import {
  activateRelease,
  assertReleaseBuild,
  publishedSigningKids,
  recordRelease,
  rollbackRelease,
  uploadRelease,
} from "./publish-release.ts";

export interface PublishOutput {
  log(line: string): void;
  error(line: string): void;
}

export async function publishCommand(argv: string[], env: NodeJS.ProcessEnv, out: PublishOutput): Promise<number> {
  try {
    await _publish(argv, env, out);
    return 0;
  } catch (error) {
    out.error(`publish failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

// --- Internal helpers ---

async function _publish(argv: string[], env: NodeJS.ProcessEnv, out: PublishOutput): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dist: { type: "string", default: "dist" },
      rollback: { type: "boolean", default: false },
      "allow-dev-build": { type: "boolean", default: false },
    },
  });
  const config = resolveReleaseStore(env) ?? { kind: "dir" as const, dir: resolve("releases") };
  const where = config.kind === "dir" ? `folder ${config.dir}` : `redis (prefix ${config.prefix})`;
  const store = await createReleaseStore(config);
  try {
    if (values.rollback) {
      const pointer = await rollbackRelease(store, config);
      await recordRelease("release.rolled_back", pointer.build_id, { previous: pointer.history[0] ?? null }, env);
      out.log(`rolled back: current release is ${pointer.build_id} in ${where}`);
      return;
    }
    await assertReleaseBuild(resolve(values.dist), {
      allowDevBuild: values["allow-dev-build"],
      publishedKids: publishedSigningKids(env),
    });
    const upload = await uploadRelease(store, resolve(values.dist));
    out.log(`${upload.uploaded ? "uploaded" : "already present:"} release ${upload.buildId} (${upload.files} files) to ${where}`);
    const pointer = await activateRelease(store, config, upload.buildId);
    await recordRelease("release.published", pointer.build_id, { uploaded: upload.uploaded, previous: pointer.history[0] ?? null }, env);
    out.log(`current release is ${pointer.build_id}${pointer.history[0] ? ` (previous ${pointer.history[0]})` : ""}`);
  } finally {
    await store.dispose();
  }
}
