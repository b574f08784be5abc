// Runs several scenarios of `@modelcontextprotocol/conformance` (pinned 0.1.13) against one server
// in one Node process: `node conformance-runner.mjs <url> <outDir> <scenario>...`. The tool is a
// command line that reads process.argv and calls process.exit when a scenario is done; it has no
// API. So each scenario imports the tool's entry afresh (a query string makes a new module; its
// packages load once, which is most of the tool's 0.9 s start) with that scenario's argv, and the
// exit it asks for ends the scenario instead of the process. Each scenario's output sits between
// `<<<scenario NAME>>>` and `<<<exit CODE>>>` lines; checks.json goes to <outDir>/<scenario>/.
import { join } from "node:path";

const tool = new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url).href;
const [url, outDir, ...scenarios] = process.argv.slice(2);
const exit = process.exit;
const argv = process.argv;
for (const scenario of scenarios) {
  process.stdout.write(`<<<scenario ${scenario}>>>\n`);
  const code = await new Promise((resolve) => {
    process.exit = (c) => resolve(c ?? 0);
    process.argv = [argv[0], "conformance", "server", "--url", url, "--scenario", scenario, "-o", join(outDir, scenario)];
    import(`${tool}?scenario=${scenario}`).catch((error) => {
      process.stdout.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      resolve(1);
    });
  });
  process.stdout.write(`<<<exit ${code}>>>\n`);
}
exit(0);
