/**
 * Smoke test with a real generic client: the MCP Inspector CLI (`@modelcontextprotocol/inspector-cli`
 * 1.0.3, pinned: the Inspector 2.x line declares Node >= 22.19) lists the tools and calls
 * `get_node`, anonymously and with a key in a header.
 *
 * The CLI finds its own package.json through a path relative to the working directory, so it is
 * started from its `build/` folder (whose parent holds that file). Its `cli.js --cli` launcher only
 * re-spawns `node build/index.js` with the same arguments; the client is started that way directly,
 * one Node process a call instead of two.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { hourlyUsage, issueKey, startMcpService } from "./_setup.ts";

const run = promisify(execFile);
const CLI_DIR = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/inspector-cli/build/", import.meta.url));

let svc: TestService;
beforeAll(async () => {
  svc = await startMcpService();
});
afterAll(() => svc?.close());

async function inspector(args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ["index.js", `${svc.url}/mcp`, "--transport", "http", ...args], {
    cwd: CLI_DIR,
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

describe("MCP Inspector CLI", () => {
  it("lists the tools", async () => {
    const result = await inspector(["--method", "tools/list"]);
    expect(result.tools.map((t: { name: string }) => t.name)).toContain("get_node");
  });

  it("calls get_node without a key and gets the index layer", async () => {
    const result = await inspector(["--method", "tools/call", "--tool-name", "get_node", "--tool-arg", "vertical=travel", "node=trv-m1"]);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.node).toMatchObject({ id: "trv-m1", locked_layers: ["logic", "directive", "skill", "action"] });
  });

  it("calls get_node with a key header and gets the layers, metered once", async () => {
    const key = await issueKey(svc, "travel");
    const result = await inspector([
      "--method",
      "tools/call",
      "--tool-name",
      "get_node",
      "--tool-arg",
      "vertical=travel",
      "node=trv-m3",
      "--header",
      `X-Service-Key: ${key}`,
    ]);
    expect(result.structuredContent.node.layers.logic.text).toContain("Logic text of trv-m3");
    expect(await hourlyUsage(svc, key)).toBe(1);
  });
});
