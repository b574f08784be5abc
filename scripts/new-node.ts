/**
 * `npm run new -- <vertical> <node-id> [--from <node-id>] [--title "…"] [--content <dir>]`:
 * scaffolds a node that builds (see build/scaffold/new-node.ts). Exit 1 when the node exists or
 * cannot be linked, 2 on bad arguments. The command itself is scripts/new-node-command.ts.
 */
import { newNodeCommand } from "./new-node-command.ts";

process.exitCode = newNodeCommand(process.argv.slice(2), { log: console.log, error: console.error });
