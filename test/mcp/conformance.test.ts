/**
 * The generic server scenarios of `@modelcontextprotocol/conformance` (pinned 0.1.13, the last
 * release that runs on Node 20; see the README's MCP note) against the real service. The other
 * scenarios need the conformance project's fixture tools (`test_simple_text`, …) and say nothing
 * about a server without them. Runs offline: the tool is a devDependency.
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
const CONFORMANCE = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url));
const SCENARIOS = ["server-initialize", "ping", "tools-list", "prompts-list", "resources-list", "dns-rebinding-protection"];

let svc: TestService;
let outDir: string;
beforeAll(async () => {
  svc = await startMcpService();
  outDir = mkdtempSync(join(tmpdir(), "vkr-conformance-"));
});
afterAll(() => svc?.close());

describe("@modelcontextprotocol/conformance generic server scenarios", () => {
  it.each(SCENARIOS)("%s passes", async (scenario) => {
    // dns-rebinding-protection needs a loopback URL; the service listens on 127.0.0.1.
    const url = `${svc.url}/mcp`;
    const out = join(outDir, scenario);
    const result = await run(process.execPath, [CONFORMANCE, "server", "--url", url, "--scenario", scenario, "-o", out], {
      timeout: 60_000,
    }).catch((e: { stdout?: string; stderr?: string; code?: number }) => e);
    const stdout = (result as { stdout?: string }).stdout ?? "";
    expect((result as { code?: number }).code ?? 0, stdout + ((result as { stderr?: string }).stderr ?? "")).toBe(0);
    expect(stdout).toMatch(/0 failed/);
    // Every recorded check succeeded, and there was at least one.
    const [dir] = readdirSync(out);
    const checks = JSON.parse(readFileSync(join(out, dir!, "checks.json"), "utf8")) as Array<{ status: string }>;
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.map((c) => c.status)).toEqual(checks.map(() => "SUCCESS"));
  });
});
