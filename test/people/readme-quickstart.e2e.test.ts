/**
 * The README's quickstarts are runnable. The REST quickstart and the buyer's block are
 * taken from README.md by name (`<!-- block: … -->`) and run by bash (curl + node only) against a
 * started server over the real content; the MCP connection lines and JSON config are checked, and
 * the Inspector command is run.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realContentDist } from "../helpers/build-fixture.ts";
import { readmeBlock } from "../helpers/markdown-docs.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";

let svc: TestService;

/** Runs a README block in bash against the started server, as it is written (no options added). */
function runBlock(script: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile("bash", ["-c", script], { env: { PATH: process.env.PATH ?? "", BASE: svc.url, ...env }, timeout: 20_000 }, (error, out, err) =>
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
    );
  });
}

beforeAll(async () => {
  svc = await startTestService(realContentDist());
});
afterAll(() => svc?.close());

describe("README quickstart", () => {
  const runQuickstart = (env: Record<string, string> = {}) => runBlock(readmeBlock("rest-quickstart"), env);

  it("runs the curl examples against a started server", async () => {
    const { code, stdout, stderr } = await runQuickstart();
    expect(code, stderr).toBe(0);
    // 1. the key, 2. the index, 3. the lean node, 4. the evaluation, 5. the MCP tools, 6. a search.
    expect(stdout).toMatch(/trial key: svc_trial_[0-9A-Za-z]{22}/);
    expect(stdout).toContain('"root":"aic-triage"');
    expect(stdout).toMatch(/"node":\{[\s\S]*"id":"aic-triage"/);
    expect(stdout).toContain('"confidence_required":1');
    expect(stdout).toMatch(/"holds":\[[^\]]*"ai_act_regime_applies"/);
    expect(stdout).toMatch(/"tools":\[\{"name":/);
    expect(stdout).toMatch(/"match":"good","results":\[\{"id":"aic-transparency-art50"/);
    // The answers are apart: the key, then five JSON answers, each on its own line(s).
    const lines = stdout.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(6);
    for (const line of lines.slice(1)) expect(() => JSON.parse(line), line.slice(0, 80)).not.toThrow();
  });

  it("can be run again: a second trial for the same agent says what to do, and the first key carries on", async () => {
    const first = await runQuickstart({ AGENT: "rerun-agent" });
    expect(first.code, first.stderr).toBe(0);
    const key = /trial key: (svc_trial_\S+)/.exec(first.stdout)![1]!;
    const again = await runQuickstart({ AGENT: "rerun-agent" });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("no new trial key: This agent already holds an active trial key");
    expect(again.stderr).toContain("export KEY=svc_trial_");
    expect(again.stderr).not.toMatch(/SyntaxError|^\s+at /m);
    // It stops there: no step runs without a key.
    expect(again.stdout).toBe("");
    const withKey = await runQuickstart({ AGENT: "rerun-agent", KEY: key });
    expect(withKey.code, withKey.stderr).toBe(0);
    expect(withKey.stdout).toContain(`trial key: ${key}`);
  });

  it("gives an MCP connection line and a JSON config with the key header for the same endpoint", async () => {
    const line = readmeBlock("mcp-claude");
    expect(line).toMatch(/^claude mcp add --transport http vkr http:\/\/127\.0\.0\.1:8787\/mcp --header "X-Service-Key: svc_trial_…"/);
    const json = readmeBlock("mcp-json");
    const config = JSON.parse(json!) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    expect(config.mcpServers.vkr).toMatchObject({
      url: "http://127.0.0.1:8787/mcp",
      headers: { "X-Service-Key": expect.stringMatching(/^svc_trial_/) },
    });
    // The endpoint those lines name answers MCP on this server.
    const res = await fetch(`${svc.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(res.status).toBe(200);
  });

  it("gives an MCP Inspector command that works as written", async () => {
    const lines = readmeBlock("mcp-inspector").split("\n");
    expect(lines[0]).toBe("cd content");
    const list = lines.find((l) => l.includes("--method tools/list"))!.replace("http://127.0.0.1:8787", svc.url);
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(
        "bash",
        ["-c", `set -euo pipefail\ncd content\n${list}`],
        { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" }, timeout: 120_000 },
        (error, out, err) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout).tools.map((t: { name: string }) => t.name)).toContain("get_node");
  }, 150_000);

  it("tells a buyer the prices and which payment methods this server accepts", async () => {
    const { code, stdout, stderr } = await runBlock(readmeBlock("buyer"));
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^cohort inaugural: \$19 per key and month$/m);
    for (const method of ["card", "agent_network", "http402"]) expect(stdout).toContain(`${method}: not configured here`);
  });

  it("documents /api/evaluate and the C++ toolchain better-sqlite3 may need (docs/)", () => {
    expect(readFileSync("docs/endpoints.md", "utf8")).toMatch(/^\| POST \| `\/api\/evaluate` \|/m);
    expect(readFileSync("README.md", "utf8")).toMatch(/better-sqlite3[\s\S]*C\+\+ toolchain/);
    expect(readFileSync("docs/configuration.md", "utf8")).toMatch(
      /better-sqlite3[\s\S]*C\+\+ toolchain[\s\S]*apt-get install -y python3 make g\+\+/,
    );
  });

  it("documents every CLI command it names (docs/operations.md)", () => {
    const cli = /```text\n([\s\S]*?)```/.exec(readFileSync("docs/operations.md", "utf8"))![1]!;
    for (const command of ["serve", "build", "publish", "keys create", "keys list", "keys show", "keys revoke", "status"])
      expect(cli).toContain(`vkr ${command}`);
  });
});
