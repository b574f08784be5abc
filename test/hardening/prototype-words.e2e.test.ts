/**
 * Over MCP (the REST operations get the same words in the fuzz suite's seeded
 * examples): names of Object.prototype members as every string argument of every tool and prompt,
 * as argument keys, as method names and in resource URIs never end in an internal error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { PROTOTYPE_WORDS } from "./fuzz-arbitraries.ts";

let svc: TestService;
let id = 0;
beforeAll(async () => void (svc = await startTestService(buildContentTo(writeFixtureContent()), { ANON_RATE_PER_MINUTE: "100000000" })));
afterAll(() => svc?.close());

async function rpc(method: string, params?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, ...(params === undefined ? {} : { params }) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function expectHandled(answer: { status: number; body: any }, what: string): void {
  expect(answer.status, what).toBeLessThan(500);
  expect(answer.body?.error?.code, `${what}: ${JSON.stringify(answer.body).slice(0, 300)}`).not.toBe(-32603);
}

/** Each string argument alone as the word, all of them at once, and the word as an extra key. */
function argumentSets(schema: { properties?: Record<string, { type?: unknown }> } | undefined, word: string): Record<string, unknown>[] {
  const names = Object.keys(schema?.properties ?? {});
  return [...names.map((n) => ({ [n]: word })), Object.fromEntries(names.map((n) => [n, word])), Object.fromEntries([[word, word]])];
}

describe("prototype-named input over MCP", () => {
  it("as every argument of every tool", async () => {
    const { body } = await rpc("tools/list");
    const tools: Array<{ name: string; inputSchema?: any }> = body.result.tools;
    expect(tools.length).toBeGreaterThan(3);
    for (const tool of tools) {
      for (const word of PROTOTYPE_WORDS) {
        for (const args of argumentSets(tool.inputSchema, word))
          expectHandled(await rpc("tools/call", { name: tool.name, arguments: args }), `tool ${tool.name} ${JSON.stringify(args)}`);
      }
    }
  });

  it("as tool, prompt and method names, prompt arguments and resource URIs", async () => {
    const prompts: Array<{ name: string; arguments?: Array<{ name: string }> }> = (await rpc("prompts/list")).body.result.prompts;
    const templates: Array<{ uriTemplate: string }> = (await rpc("resources/templates/list")).body.result?.resourceTemplates ?? [];
    for (const word of PROTOTYPE_WORDS) {
      expectHandled(await rpc(word), `method ${word}`);
      expectHandled(await rpc("tools/call", { name: word, arguments: {} }), `tool named ${word}`);
      expectHandled(await rpc("prompts/get", { name: word }), `prompt named ${word}`);
      for (const prompt of prompts) {
        const names = (prompt.arguments ?? []).map((a) => a.name);
        for (const args of [Object.fromEntries(names.map((n) => [n, word])), Object.fromEntries([[word, word]])]) {
          expectHandled(await rpc("prompts/get", { name: prompt.name, arguments: args }), `prompt ${prompt.name} ${JSON.stringify(args)}`);
        }
      }
      for (const t of templates) {
        const uri = t.uriTemplate.replace(/\{[^}]+\}/g, word);
        expectHandled(await rpc("resources/read", { uri }), `resource ${uri}`);
      }
      expectHandled(await rpc("resources/read", { uri: word }), `resource ${word}`);
    }
  });
});

describe("prototype-named configuration values", () => {
  it("an x402 network named like an Object.prototype member is refused as unknown, not looked up on the prototype", async () => {
    const { resolveNetwork } = await import("../../runtime/domain/payments/providers/http402.ts");
    for (const word of PROTOTYPE_WORDS) expect(() => resolveNetwork(word), word).toThrow(/not an EVM network x402 knows/);
    expect(resolveNetwork("base")).toEqual({ v1: "base", v2: "eip155:8453", testnet: false });
    expect(resolveNetwork("eip155:84532")).toEqual({ v1: "base-sepolia", v2: "eip155:84532", testnet: true });
  });
});
