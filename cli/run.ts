/**
 * The `vkr` command line as a function: `runCli(argv, io)` runs one command line with the given
 * streams and environment and resolves to its exit code. main.ts is the binary's thin caller; the
 * suites call it in their own process for the cases a child would only make slower (cli/io.ts).
 */
import { type LazyCommand, lazyCommand, runCommandLine } from "./command-line.ts";
import { type CliIo, withCliIo } from "./io.ts";

// Each command is loaded only when it runs: `vkr --help` loads none, and `vkr status` never loads
// the content build or the server (bin/vkr.mjs runs the bundled form).
const commands: Record<string, LazyCommand> = {
  serve: lazyCommand("Run the service (PORT, HOST, DATA_DIR, DIST_DIR, ADMIN_KEY, … from the environment)", () =>
    import("./commands/serve.ts").then((m) => m.default),
  ),
  build: lazyCommand("Build content/ into dist/ (data, browse site, llms.txt); prints problems as file:line › pointer: message", () =>
    import("./commands/build.ts").then((m) => m.default),
  ),
  publish: lazyCommand(
    "Publish the build in dist/ as the current release (release store from RELEASE_REDIS_URL, RELEASE_DIR or REDIS_URL; default ./releases)",
    () => import("./commands/publish.ts").then((m) => m.default),
  ),
  keys: lazyCommand("Manage service keys on the service's state store", () => import("./commands/keys.ts").then((m) => m.default)),
  payments: lazyCommand("Purchases: list, reconcile after a crash, acknowledge refunds", () =>
    import("./commands/payments.ts").then((m) => m.default),
  ),
  status: lazyCommand("Report the build and store (local), or a running service's readiness (--url)", () =>
    import("./commands/status.ts").then((m) => m.default),
  ),
  audit: lazyCommand("Show the audit trail (keys, purchases, payment configuration, releases), newest first", () =>
    import("./commands/audit.ts").then((m) => m.default),
  ),
  backup: lazyCommand("Copy the embedded store into <file> while the server serves (checksum and layout recorded)", () =>
    import("./commands/backup.ts").then((m) => m.backup),
  ),
  restore: lazyCommand("Restore <file> into a folder no server is using (an older layout is upgraded)", () =>
    import("./commands/backup.ts").then((m) => m.restore),
  ),
  "verify-answer": lazyCommand(
    "Check a saved answer's digest and signature against the published keys; names its node, version and build",
    () => import("./commands/verify-answer.ts").then((m) => m.default),
  ),
};

/** Runs the command `argv` names with `io`; resolves to the exit code (EXIT in exit-codes.ts). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  await withCliIo(io, () =>
    runCommandLine(
      {
        name: "vkr",
        description:
          "Operate the knowledge retrieval service. Exit codes: 0 ok, 1 failure or usage error, 2 config error, 3 not found, 4 refused, 5 not ready.",
        commands,
      },
      argv,
    ),
  );
  return io.exitCode;
}
