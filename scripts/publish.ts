/**
 * `npm run publish`: uploads the finished build in `dist/` (or `--dist <dir>`) as an immutable
 * release and makes it current; `npm run publish -- --rollback` points back to the previous one.
 * The release store comes from the environment exactly as the runtime reads it (RELEASE_REDIS_URL,
 * else RELEASE_DIR, else REDIS_URL), defaulting to the folder `./releases`. Run
 * `npm run build:release` first: the build validates the content and refuses placeholders; this
 * refuses a build made without `--release` (unless `--allow-dev-build`) and checks every file
 * against the manifest again.
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dist: { type: "string", default: "dist" },
      rollback: { type: "boolean", default: false },
      "allow-dev-build": { type: "boolean", default: false },
    },
  });
  const config = resolveReleaseStore(process.env) ?? { kind: "dir" as const, dir: resolve("releases") };
  const where = config.kind === "dir" ? `folder ${config.dir}` : `redis (prefix ${config.prefix})`;
  const store = await createReleaseStore(config);
  try {
    if (values.rollback) {
      const pointer = await rollbackRelease(store, config);
      await recordRelease("release.rolled_back", pointer.build_id, { previous: pointer.history[0] ?? null });
      process.stdout.write(`rolled back: current release is ${pointer.build_id} in ${where}\n`);
      return;
    }
    await assertReleaseBuild(resolve(values.dist), {
      allowDevBuild: values["allow-dev-build"],
      publishedKids: publishedSigningKids(process.env),
    });
    const upload = await uploadRelease(store, resolve(values.dist));
    process.stdout.write(
      `${upload.uploaded ? "uploaded" : "already present:"} release ${upload.buildId} (${upload.files} files) to ${where}\n`,
    );
    const pointer = await activateRelease(store, config, upload.buildId);
    await recordRelease("release.published", pointer.build_id, { uploaded: upload.uploaded, previous: pointer.history[0] ?? null });
    process.stdout.write(`current release is ${pointer.build_id}${pointer.history[0] ? ` (previous ${pointer.history[0]})` : ""}\n`);
  } finally {
    await store.dispose();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`publish failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
