/**
 * `vkr`: the operator CLI. Every command works on the same config, stores and functions as the
 * server (runtime/), never on copies. Exit codes: see exit-codes.ts (also printed by `vkr --help`).
 */
import { processIo } from "./io.ts";
import { runCli } from "./run.ts";

// The command table and the run live in run.ts, which the suites call without a child process.
process.exitCode = await runCli(process.argv.slice(2), processIo());
