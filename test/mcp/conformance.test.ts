/**
 * The generic server scenarios of `@modelcontextprotocol/conformance` (pinned 0.1.13, the last
 * release that runs on Node 20; see the README's MCP note) against the real service. The other
 * scenarios need the conformance project's fixture tools (`test_simple_text`, …) and say nothing
 * about a server without them. Runs offline: the tool is a devDependency. The six scenarios run in
 * one Node process (conformance-runner.mjs), each as its own run of the tool's command line with its
 * own exit code, output and checks.json: six processes cost a Node start and the tool's packages
 * six times (about 0.9 s of CPU each).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { startMcpService } from "./_setup.ts";

const run = promisify(execFile);
const RUNNER = fileURLToPath(new URL("./conformance-runner.mjs", import.meta.url));
const SCENARIOS = ["server-initialize", "ping", "tools-list", "prompts-list", "resources-list", "dns-rebinding-protection"];

let svc: TestService;
let outDir: string;
/** Each scenario's exit code and output. */
const runs = new Map<string, { code: number; stdout: string }>();
beforeAll(async () => {
  svc = await startMcpService();
  outDir = mkdtempSync(join(tmpdir(), "vkr-conformance-"));
  // dns-rebinding-protection needs a loopback URL; the service listens on 127.0.0.1.
  const { stdout } = await run(process.execPath, [RUNNER, `${svc.url}/mcp`, outDir, ...SCENARIOS], { timeout: 120_000 });
  for (const [, scenario, output, code] of stdout.matchAll(/<<<scenario (\S+)>>>\n([\s\S]*?)<<<exit (\d+)>>>/g))
    runs.set(scenario!, { code: Number(code), stdout: output! });
}, 150_000);
afterAll(() => svc?.close());

describe("@modelcontextprotocol/conformance generic server scenarios", () => {
  it.each(SCENARIOS)("%s passes", async (scenario) => {
    const result = runs.get(scenario);
    expect(result, `no run of ${scenario}`).toBeDefined();
    const { code, stdout } = result!;
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/0 failed/);
    const out = join(outDir, scenario);
    // Every recorded check succeeded, and there was at least one.
    const [dir] = readdirSync(out);
    const checks = JSON.parse(readFileSync(join(out, dir!, "checks.json"), "utf8")) as Array<{ status: string }>;
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.map((c) => c.status)).toEqual(checks.map(() => "SUCCESS"));
  });
});
