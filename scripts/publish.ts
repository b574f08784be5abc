/**
 * `npm run publish`: uploads the finished build in `dist/` (or `--dist <dir>`) as an immutable
 * release and makes it current; `npm run publish -- --rollback` points back to the previous one.
 * The release store comes from the environment exactly as the runtime reads it (RELEASE_REDIS_URL,
 * else RELEASE_DIR, else REDIS_URL), defaulting to the folder `./releases`. Run
 * `npm run build:release` first: the build validates the content and refuses placeholders; this
 * refuses a build made without `--release` (unless `--allow-dev-build`) and checks every file
 * against the manifest again.
 */
import { publishCommand } from "./publish-command.ts";

process.exitCode = await publishCommand(process.argv.slice(2), process.env, {
  log: (line) => process.stdout.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
});
