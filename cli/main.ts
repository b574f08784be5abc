/**
 * `vkr`: the operator CLI. Every command works on the same config, stores and functions as the
 * server (runtime/), never on copies. Exit codes: see exit-codes.ts (also printed by `vkr --help`).
 */
import { defineCommand, renderUsage, runMain, type ArgsDef, type CommandDef } from "citty";
import build from "./commands/build.ts";
import keys from "./commands/keys.ts";
import payments from "./commands/payments.ts";
import publish from "./commands/publish.ts";
import serve from "./commands/serve.ts";
import status from "./commands/status.ts";
import { EXIT } from "./exit-codes.ts";
import { assertValidArgv, resolveCommand, UsageError } from "./strict-args.ts";

const main = defineCommand({
  meta: {
    name: "vkr",
    description: "Operate the knowledge retrieval service. Exit codes: 0 ok, 1 failure or usage error, 2 config error, 3 not found, 4 refused, 5 not ready.",
  },
  subCommands: { serve, build, publish, keys, payments, status },
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
