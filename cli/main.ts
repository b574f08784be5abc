/**
 * `vkr`: the operator CLI. Every command works on the same config, stores and functions as the
 * server (runtime/), never on copies. Exit codes: see exit-codes.ts (also printed by `vkr --help`).
 */
import { defineCommand, renderUsage, runMain, type ArgsDef, type CommandDef } from "citty";
import { EXIT } from "./exit-codes.ts";
import { assertValidArgv, resolveCommand, UsageError } from "./strict-args.ts";

// Each command is loaded only when it runs: `vkr status` never loads the content build or the
// server, which keeps a command's start well under a second (bin/vkr.mjs runs the bundled form).
const main = defineCommand({
  meta: {
    name: "vkr",
    description:
      "Operate the knowledge retrieval service. Exit codes: 0 ok, 1 failure or usage error, 2 config error, 3 not found, 4 refused, 5 not ready.",
  },
  subCommands: {
    serve: () => import("./commands/serve.ts").then((m) => m.default),
    build: () => import("./commands/build.ts").then((m) => m.default),
    publish: () => import("./commands/publish.ts").then((m) => m.default),
    keys: () => import("./commands/keys.ts").then((m) => m.default),
    payments: () => import("./commands/payments.ts").then((m) => m.default),
    status: () => import("./commands/status.ts").then((m) => m.default),
    audit: () => import("./commands/audit.ts").then((m) => m.default),
    backup: () => import("./commands/backup.ts").then((m) => m.backup),
    restore: () => import("./commands/backup.ts").then((m) => m.restore),
    "verify-answer": () => import("./commands/verify-answer.ts").then((m) => m.default),
  },
});

const argv = process.argv.slice(2);
try {
  await assertValidArgv(main as CommandDef<ArgsDef>, argv);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  if (argv.includes("--json")) process.stdout.write(`${JSON.stringify({ error: { code: "usage", message: error.message } })}\n`);
  process.stderr.write(`${error.commandName}: ${error.message}\nRun "${error.commandName} --help" for its usage.\n`);
  process.exit(EXIT.failure);
}
// citty names a subcommand after its parent only ("keys create"); usage lines show the whole command.
const showUsage = async <T extends ArgsDef>(command: CommandDef<T>) => {
  const { name } = await resolveCommand(main as CommandDef<ArgsDef>, argv);
  const parent = name.split(" ").slice(0, -1).join(" ");
  const usage = await renderUsage(command, parent ? (defineCommand({ meta: { name: parent } }) as CommandDef<T>) : undefined);
  // citty marks code with backticks for its own colouring; plain text reads better in a terminal and a pipe.
  process.stdout.write(`${usage.replace(/`/g, "")}\n`);
};
await runMain(main, { rawArgs: argv, showUsage });
