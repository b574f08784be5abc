/**
 * `vkr`: the operator CLI. Every command works on the same config, stores and functions as the
 * server (runtime/), never on copies. Exit codes: see exit-codes.ts (also printed by `vkr --help`).
 */
import { defineCommand, runMain } from "citty";
import build from "./commands/build.ts";
import keys from "./commands/keys.ts";
import payments from "./commands/payments.ts";
import publish from "./commands/publish.ts";
import serve from "./commands/serve.ts";
import status from "./commands/status.ts";

const main = defineCommand({
  meta: {
    name: "vkr",
    description: "Operate the knowledge retrieval service. Exit codes: 0 ok, 1 failure or usage error, 2 config error, 3 not found, 4 refused, 5 not ready.",
  },
  subCommands: { serve, build, publish, keys, payments, status },
});

await runMain(main);
