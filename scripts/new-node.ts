/**
 * `npm run new -- <vertical> <node-id> [--from <node-id>] [--title "…"] [--content <dir>]`:
 * scaffolds a node that builds (see build/scaffold/new-node.ts). Exit 1 when the node exists or
 * cannot be linked, 2 on bad arguments.
 */
import { parseArgs } from "node:util";
import { ScaffoldError, scaffoldNode } from "../build/scaffold/new-node.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: "string" },
    title: { type: "string" },
    content: { type: "string", default: "content" },
    help: { type: "boolean", short: "h", default: false },
  },
});

const usage = 'usage: npm run new -- <vertical> <node-id> [--from <node-id>] [--title "…"] [--content <dir>]';
if (values.help) {
  console.log(usage);
} else if (positionals.length !== 2) {
  console.error(usage);
  process.exitCode = 2;
} else {
  try {
    const [vertical, id] = positionals as [string, string];
    const result = scaffoldNode({ contentDir: values.content!, vertical, id, from: values.from, title: values.title, now: new Date() });
    console.log(`created ${result.file} (order ${result.order}), linked from ${result.linkedFrom}; replace the TODOs, then npm run build`);
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    console.error(`new: ${error.message}`);
    process.exitCode = error.message.includes("kebab-case") ? 2 : 1;
  }
}
