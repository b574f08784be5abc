/**
 * Issue 10: the README's quickstart is runnable. The `sh` block under "Quickstart for agent
 * developers" is extracted from README.md and run by bash (curl + node only) against a started
 * server over the real content; the MCP connection lines and JSON config are checked too.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../helpers/test-service.ts";

const README = readFileSync("README.md", "utf8");
let svc: TestService;

/** The fenced blocks of one `## ` section, by language. */
function blocksOf(section: string, lang: string): string[] {
  const start = README.indexOf(`\n## ${section}`);
  expect(start, `README has no "## ${section}" section`).toBeGreaterThan(-1);
  const end = README.indexOf("\n## ", start + 4);
  const body = README.slice(start, end === -1 ? undefined : end);
  return [...body.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map((m) => m[1]!);
}

beforeAll(async () => {
  svc = await startTestService(resolve("dist"));
});
afterAll(() => svc?.close());

describe("README quickstart", () => {
  const runQuickstart = (env: Record<string, string> = {}) => {
    const [script] = blocksOf("Quickstart for agent developers", "sh");
    expect(script).toMatch(/curl/);
    return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile("bash", ["-c", `set -euo pipefail\n${script}`], { env: { PATH: process.env.PATH ?? "", BASE: svc.url, ...env }, timeout: 20_000 }, (error, out, err) =>
        done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });
  };

  it("runs the curl examples against a started server", async () => {
    const { code, stdout, stderr } = await runQuickstart();
    expect(code, stderr).toBe(0);
    // 1. the key, 2. the index, 3. the lean node, 4. the evaluation, 5. the MCP tools.
    expect(stdout).toMatch(/trial key: svc_trial_[0-9A-Za-z]{22}/);
    expect(stdout).toContain('"root":"aic-triage"');
    expect(stdout).toMatch(/"node":\{[^]*"id":"aic-triage"/);
    expect(stdout).toContain('"confidence_required":1');
    expect(stdout).toMatch(/"holds":\[[^\]]*"ai_act_regime_applies"/);
    expect(stdout).toMatch(/"tools":\[\{"name":/);
  });

  it("can be run again: a second trial for the same agent says what to do, and the first key carries on (issue 17, item 13)", async () => {
    const first = await runQuickstart({ AGENT: "rerun-agent" });
    expect(first.code, first.stderr).toBe(0);
    const key = /trial key: (svc_trial_\S+)/.exec(first.stdout)![1]!;
    const again = await runQuickstart({ AGENT: "rerun-agent" });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("no new trial key: This agent already holds an active trial key");
    expect(again.stderr).toContain("export KEY=svc_trial_");
    expect(again.stderr).not.toMatch(/SyntaxError|^\s+at /m);
    const withKey = await runQuickstart({ AGENT: "rerun-agent", KEY: key });
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stdout).toContain(`trial key: ${key}`);
  });

  it("sets $KEY in \"Try it\" before using it", () => {
    const start = README.indexOf("Try it:");
    const block = README.slice(start, README.indexOf("```\n", README.indexOf("```sh", start) + 5));
    expect(block.indexOf("KEY=$(")).toBeGreaterThan(-1);
    expect(block.indexOf("KEY=$(")).toBeLessThan(block.indexOf("$KEY"));
  });

  it("gives an MCP connection line and a JSON config with the key header for the same endpoint", async () => {
    const [line] = blocksOf("Quickstart for agent developers", "text");
    expect(line).toMatch(/^claude mcp add --transport http vkr http:\/\/127\.0\.0\.1:8787\/mcp --header "X-Service-Key: svc_trial_…"/);
    const [json] = blocksOf("Quickstart for agent developers", "json");
    const config = JSON.parse(json!) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    expect(config.mcpServers.vkr).toMatchObject({ url: "http://127.0.0.1:8787/mcp", headers: { "X-Service-Key": expect.stringMatching(/^svc_trial_/) } });
    // The endpoint those lines name answers MCP on this server.
    const res = await fetch(`${svc.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
    expect(res.status).toBe(200);
  });

  it("gives an MCP Inspector command that works as written (issue 17, item 13)", async () => {
    const block = blocksOf("Quickstart for agent developers", "sh").find((b) => b.includes("inspector-cli"));
    expect(block, "an Inspector block in the quickstart section").toBeDefined();
    const lines = block!.split("\n");
    expect(lines[0]).toBe("cd content");
    const list = lines.find((l) => l.includes("--method tools/list"))!.replace("http://127.0.0.1:8787", svc.url);
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile("bash", ["-c", `set -euo pipefail\ncd content\n${list}`], { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }, timeout: 120_000 }, (error, out, err) =>
        done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout).tools.map((t: { name: string }) => t.name)).toContain("get_node");
  }, 150_000);

  it("documents /api/evaluate and the C++ toolchain better-sqlite3 may need", () => {
    expect(README).toMatch(/^\| POST \| `\/api\/evaluate` \|/m);
    expect(README).toMatch(/better-sqlite3[^]*C\+\+ toolchain/);
  });

  it("documents every CLI command it names", () => {
    const [cli] = blocksOf("Operators: the `vkr` CLI and metrics", "text");
    for (const command of ["serve", "build", "publish", "keys create", "keys list", "keys show", "keys revoke", "status"]) expect(cli).toContain(`vkr ${command}`);
  });
});
