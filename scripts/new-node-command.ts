/**
 * `npm run new`'s command line as a function (scripts/new-node.ts is its caller): parses `argv`,
 * scaffolds the node (build/scaffold/new-node.ts), prints to `out`, and returns the exit code
 * (1 when the node exists or cannot be linked, 2 on bad arguments). A function, so the suite runs
 * most cases in its own process; one `npm run new` proves the wiring.
 */
import { parseArgs } from "node:util";
import { ScaffoldError, scaffoldNode } from "../build/scaffold/new-node.ts";

export interface NewNodeOutput {
  log(line: string): void;
  error(line: string): void;
}

const USAGE = 'usage: npm run new -- <vertical> <node-id> [--from <node-id>] [--title "…"] [--content <dir>]';

export function newNodeCommand(argv: string[], out: NewNodeOutput, now = new Date()): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: "string" },
      title: { type: "string" },
      content: { type: "string", default: "content" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    out.log(USAGE);
    return 0;
  }
  if (positionals.length !== 2) {
    out.error(USAGE);
    return 2;
  }
  try {
    const [vertical, id] = positionals as [string, string];
    const result = scaffoldNode({ contentDir: values.content!, vertical, id, from: values.from, title: values.title, now });
    out.log(`created ${result.file} (order ${result.order}), linked from ${result.linkedFrom}; replace the TODOs, then npm run build`);
    return 0;
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    out.error(`new: ${error.message}`);
    return error.message.includes("kebab-case") ? 2 : 1;
  }
}
