/**
 * `npm run publish`'s command line as a function (scripts/publish.ts is its caller): parses
 * `argv`, publishes or rolls back with the release store `env` names, prints to `out`, and returns
 * the exit code (1 on any failure, with one line saying why). A function, so the publication
 * suites run most cases in their own process; one `npm run publish` child proves the wiring.
 */
import { parseArgs } from "node:util";
import type { LineOutput } from "../build/build-report.ts";
import { describeReleaseStore, publishRelease, publishStore } from "./publish-release.ts";

export async function publishCommand(argv: string[], env: NodeJS.ProcessEnv, out: LineOutput): Promise<number> {
  try {
    await _publish(argv, env, out);
    return 0;
  } catch (error) {
    out.error(`publish failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

// --- Internal helpers ---

async function _publish(argv: string[], env: NodeJS.ProcessEnv, out: LineOutput): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      dist: { type: "string", default: "dist" },
      rollback: { type: "boolean", default: false },
      "allow-dev-build": { type: "boolean", default: false },
    },
  });
  const config = publishStore(env);
  const where = describeReleaseStore(config);
  const outcome = await publishRelease(config, {
    dist: values.dist,
    rollback: values.rollback,
    allowDevBuild: values["allow-dev-build"],
    env,
  });
  if (outcome.kind === "rolled_back") {
    out.log(`rolled back: current release is ${outcome.pointer.build_id} in ${where}`);
    return;
  }
  const { upload, pointer } = outcome;
  out.log(`${upload.uploaded ? "uploaded" : "already present:"} release ${upload.buildId} (${upload.files} files) to ${where}`);
  out.log(`current release is ${pointer.build_id}${pointer.history[0] ? ` (previous ${pointer.history[0]})` : ""}`);
}
