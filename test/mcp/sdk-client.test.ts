/**
 * The official SDK `Client` over Streamable HTTP against the real service on a real port:
 * negotiation, every list, every tool, prompts, resources, and tool calls under the same access
 * matrix and metering as REST (compared against the REST answers of the same requests).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { hourlyUsage, issueKey, startMcpService, trialKey } from "./_setup.ts";

let svc: TestService;
let anonymous: Client;
let travelMember: string;
let allMember: string;
let travelTrial: string;
const clients: Client[] = [];

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "vkr-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const text = (result: any): string => result.content[0].text as string;

beforeAll(async () => {
  svc = await startMcpService();
  travelMember = await issueKey(svc, "travel");
  allMember = await issueKey(svc, "all");
  travelTrial = await trialKey(svc, "mcp-sdk-agent", "travel");
  anonymous = await connect();
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await svc?.close();
});

describe("session", () => {
  it("negotiates 2025-11-25 and reports the server", () => {
    expect(anonymous.getServerVersion()).toMatchObject({ name: "vertical-knowledge-retrieval" });
    expect(anonymous.getServerCapabilities()).toMatchObject({ tools: {}, prompts: {}, resources: {} });
    expect(anonymous.getInstructions()).toContain("evaluate_rules");
  });

  it("pings", async () => {
    expect(await anonymous.ping()).toEqual({});
  });
});

describe("tools/list", () => {
  it("lists every tool with an object input schema from the REST declarations and an output schema", async () => {
    const { tools } = await anonymous.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "list_verticals",
      "get_index",
      "get_node",
      "search",
      "evaluate_rules",
      "get_changes",
      "verify_key",
    ]);
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
    }
    const evaluate = tools.find((t) => t.name === "evaluate_rules")!;
    expect(evaluate.inputSchema.required).toEqual(["vertical", "node", "facts"]);
    const node = tools.find((t) => t.name === "get_node")!;
    expect(Object.keys(node.inputSchema.properties!)).toEqual(["vertical", "node", "lean", "layers", "pay"]);
    // Every parameter of every tool says what it is.
    for (const tool of tools) {
      for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {}))
        expect((schema as { description?: string }).description, `${tool.name}.${name}`).toBeTruthy();
    }
  });
});

describe("tools/call: content under the REST access matrix", () => {
  it("get_node without a key is the locked view REST serves, knowledge only by default (REST's lean bytes plus the unlock hint)", async () => {
    const result = await anonymous.callTool({ name: "get_node", arguments: { vertical: "travel", node: "trv-m1" } });
    expect(result.isError).toBeFalsy();
    const rest = await svc.request("/api/demo?vertical=travel&node=trv-m1&lean=true");
    const restFull = await svc.request("/api/demo?vertical=travel&node=trv-m1");
    expect(result.structuredContent).toEqual({ unlock: restFull.body.unlock, ...rest.body });
    expect(Object.keys(result.structuredContent!).sort()).toEqual(["next_nodes", "node", "unlock"]);
    // An explicit lean: true is REST's lean bytes exactly.
    const lean = await anonymous.callTool({ name: "get_node", arguments: { vertical: "travel", node: "trv-m1", lean: true } });
    expect(text(lean)).toBe(rest.text);
    expect((result.structuredContent as any).node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
    // lean: false is REST's default answer, wrappers included.
    const full = await anonymous.callTool({ name: "get_node", arguments: { vertical: "travel", node: "trv-m1", lean: false } });
    expect(text(full)).toBe((await svc.request("/api/demo?vertical=travel&node=trv-m1")).text);
  });

  it("get_index is knowledge only by default; the wrapper text is once in vkr://about, named in the instructions", async () => {
    const index = await anonymous.callTool({ name: "get_index", arguments: { vertical: "travel" } });
    expect(text(index)).toBe((await svc.request("/api/demo?vertical=travel&lean=true")).text);
    expect(text(index)).not.toContain("community_note");
    expect(anonymous.getInstructions()).toContain("vkr://about");
    const about = await anonymous.readResource({ uri: "vkr://about" });
    const full = (await svc.request("/api/demo?vertical=travel")).body;
    const wrappers = JSON.parse((about.contents[0] as { text: string }).text);
    expect(Object.keys(wrappers).sort()).toEqual([
      "community_note",
      "confidence_calibration",
      "cta",
      "node_types_explained",
      "performance_preview",
    ]);
    for (const [field, value] of Object.entries(wrappers)) expect(value).toEqual(full[field]);
    expect((await anonymous.listResources()).resources[0]!.uri).toBe("vkr://about");
  });

  it("a bad argument reads as what is allowed, said once", async () => {
    const result = await anonymous.callTool({
      name: "get_node",
      arguments: { vertical: "travel", node: "trv-m1", layers: ["logic", "bogus"], colour: 1 },
    });
    expect(result.isError).toBe(true);
    const message = text(result);
    expect(message).toContain("must be one of logic, directive, skill, action");
    expect(message).toContain("the known ones are vertical, node, lean, layers, pay");
    expect(message).not.toContain("Expected union value");
    // Each message once: the first line says it, the JSON after it does not repeat it.
    expect(message.split("must be one of").length).toBe(2);
    expect(message.split("the known ones are").length).toBe(2);
  });

  it("get_node with a key (X-Service-Key or Bearer) unlocks the layers and meters one call", async () => {
    const variants: Array<Record<string, string>> = [{ "x-service-key": travelMember }, { authorization: `Bearer ${travelMember}` }];
    for (const headers of variants) {
      const client = await connect(headers);
      const before = await hourlyUsage(svc, travelMember);
      const result = await client.callTool({ name: "get_node", arguments: { vertical: "travel", node: "trv-m2", lean: true } });
      const rest = await svc.request("/api/demo?vertical=travel&node=trv-m2&lean=true", { headers: { "x-service-key": travelMember } });
      expect(result.structuredContent).toEqual(rest.body);
      expect((result.structuredContent as any).node.layers.logic.text).toContain("Logic text of trv-m2");
      // One for the tool call, one for the REST comparison.
      expect(await hourlyUsage(svc, travelMember)).toBe(before + 2);
    }
  });

  it("get_node with layers returns only those layers", async () => {
    const client = await connect({ "x-service-key": travelMember });
    const result = await client.callTool({
      name: "get_node",
      arguments: { vertical: "travel", node: "trv-m1", layers: ["action", "logic"] },
    });
    const node = (result.structuredContent as any).node;
    expect(Object.keys(node.layers)).toEqual(["logic", "action"]);
    expect(node.selected_layers).toEqual(["logic", "action"]);
  });

  it("a gated vertical without credentials is an isError result with the 402 problem and unlock options", async () => {
    const result = await anonymous.callTool({ name: "get_node", arguments: { vertical: "legal", node: "legal-one" } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const problem = JSON.parse(text(result).split("\n").slice(1).join("\n"));
    expect(problem).toMatchObject({
      status: 402,
      code: "payment_required",
      unlock: { membership: { vertical: "legal", path: "/api/checkout" } },
    });
  });

  it("beyond the trial modules and on another vertical a key gets the free locked view with an unlock hint, and consumes nothing", async () => {
    const trial = await connect({ "x-service-key": travelTrial });
    const before = await hourlyUsage(svc, travelTrial);
    const notInTrial = await trial.callTool({ name: "get_node", arguments: { vertical: "travel", node: "trv-m7" } });
    expect(notInTrial.isError).toBeFalsy();
    expect((notInTrial.structuredContent as any).node.locked_layers).toEqual(["logic", "directive", "skill", "action"]);
    expect((notInTrial.structuredContent as any).unlock.membership.vertical).toBe("travel");
    const member = await connect({ "x-service-key": travelMember });
    const other = await member.callTool({ name: "get_node", arguments: { vertical: "real-estate", node: "re-one" } });
    expect((other.structuredContent as any).unlock.membership.vertical).toBe("real-estate");
    expect(await hourlyUsage(svc, travelTrial)).toBe(before);
  });

  it("an unknown key is an isError 401 where there is no free view, while free content and lists still work", async () => {
    const bad = await connect({ "x-service-key": "svc_live_00000000000000000000000000000000" });
    const result = await bad.callTool({ name: "evaluate_rules", arguments: { vertical: "travel", node: "trv-m1", facts: {} } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("key_invalid");
    const node = await bad.callTool({ name: "get_node", arguments: { vertical: "travel", node: "trv-m1" } });
    expect(node.isError).toBeFalsy();
    expect((node.structuredContent as any).credential_problem.code).toBe("key_invalid");
    const index = await bad.callTool({ name: "get_index", arguments: { vertical: "travel" } });
    expect(index.isError).toBeFalsy();
    expect((index.structuredContent as any).credential_problem.code).toBe("key_invalid");
    expect((await bad.listTools()).tools.length).toBe(7);
    expect((await bad.listResources()).resources.length).toBeGreaterThan(0);
  });

  it("get_index and list_verticals match REST", async () => {
    const index = await anonymous.callTool({ name: "get_index", arguments: { vertical: "ethics", lean: true } });
    expect(index.structuredContent).toEqual((await svc.request("/api/demo?vertical=ai-compliance&lean=true")).body);
    const verticals = await anonymous.callTool({ name: "list_verticals", arguments: {} });
    expect((verticals.structuredContent as any).verticals.map((v: any) => v.slug)).toContain("travel");
  });

  it("evaluate_rules answers exactly as POST /api/evaluate and meters like it", async () => {
    const client = await connect({ "x-service-key": travelMember });
    const request = { vertical: "travel", node: "trv-m1", facts: { condition_a: true, condition_b: false } };
    const before = await hourlyUsage(svc, travelMember);
    const result = await client.callTool({ name: "evaluate_rules", arguments: request });
    expect(await hourlyUsage(svc, travelMember)).toBe(before + 1);
    const rest = await svc.request("/api/evaluate", { method: "POST", headers: { "x-service-key": travelMember }, json: request });
    expect(result.structuredContent).toEqual(rest.body);
    expect(rest.body.holds).toEqual(["outcome_x"]);
    const bad = await client.callTool({ name: "evaluate_rules", arguments: { ...request, facts: { condition_a: "yes" } } });
    expect(bad.isError).toBe(true);
    const anon = await anonymous.callTool({ name: "evaluate_rules", arguments: request });
    expect(text(anon)).toContain("payment_required");
  });

  it("get_changes needs a membership key and pages like GET /v1/delta", async () => {
    const none = await anonymous.callTool({ name: "get_changes", arguments: {} });
    expect(text(none)).toContain("key_missing");
    const trial = await connect({ "x-service-key": travelTrial });
    expect(text(await trial.callTool({ name: "get_changes", arguments: {} }))).toContain("membership_required");
    const client = await connect({ "x-service-key": allMember });
    const page = await client.callTool({ name: "get_changes", arguments: { limit: 3 } });
    const rest = await svc.request("/v1/delta?limit=3", { headers: { "x-service-key": allMember } });
    expect(page.structuredContent).toEqual(rest.body);
    expect((page.structuredContent as any).entries).toHaveLength(3);
  });

  it("verify_key reports the presented key or the given one, without consuming quota", async () => {
    const client = await connect({ "x-service-key": travelMember });
    const before = await hourlyUsage(svc, travelMember);
    const own = await client.callTool({ name: "verify_key", arguments: {} });
    expect(own.structuredContent).toMatchObject({ valid: true, type: "membership" });
    const other = await anonymous.callTool({ name: "verify_key", arguments: { key: "svc_live_nope" } });
    expect(other.structuredContent).toMatchObject({ valid: false });
    expect((await anonymous.callTool({ name: "verify_key", arguments: {} })).isError).toBe(true);
    expect(await hourlyUsage(svc, travelMember)).toBe(before);
  });
});

describe("prompts", () => {
  it("lists the playbooks and renders one with its arguments and the vertical's root", async () => {
    const { prompts } = await anonymous.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["triage_ai_system", "check_passenger_rights", "explore_vertical"]);
    const prompt = await anonymous.getPrompt({
      name: "check_passenger_rights",
      arguments: { situation: "Flight FR123 arrived 4 hours late" },
    });
    const message = prompt.messages[0]!;
    expect(message.role).toBe("user");
    expect((message.content as { text: string }).text).toContain("Flight FR123 arrived 4 hours late");
    expect((message.content as { text: string }).text).toContain("`trv-m1`");
  });
});

describe("resources", () => {
  it("lists indexes and nodes with stable URIs, only for verticals the caller may see", async () => {
    const { resources } = await anonymous.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("vkr://travel");
    expect(uris).toContain("vkr://travel/trv-m1");
    expect(uris.some((u) => u.startsWith("vkr://legal"))).toBe(false);
    const keyed = await connect({ "x-service-key": allMember });
    expect((await keyed.listResources()).resources.map((r) => r.uri)).toContain("vkr://legal/legal-one");
    const { resourceTemplates } = await anonymous.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toContain("vkr://{vertical}/{node}");
  });

  it("reading a node with a key unlocks it and counts one retrieval", async () => {
    const client = await connect({ "x-service-key": travelMember });
    const before = await hourlyUsage(svc, travelMember);
    const node = await client.readResource({ uri: "vkr://travel/trv-m4" });
    expect(JSON.parse((node.contents[0] as { text: string }).text).node.locked_layers).toEqual([]);
    expect(await hourlyUsage(svc, travelMember)).toBe(before + 1);
  });

  it("reads a node and an index as REST serves them, aliases included", async () => {
    const node = await anonymous.readResource({ uri: "vkr://travel/trv-m1" });
    expect(node.contents[0]).toMatchObject({ uri: "vkr://travel/trv-m1", mimeType: "application/json" });
    expect((node.contents[0] as { text: string }).text).toBe((await svc.request("/api/demo?vertical=travel&node=trv-m1")).text);
    const index = await anonymous.readResource({ uri: "vkr://ethics" });
    expect(JSON.parse((index.contents[0] as { text: string }).text)).toEqual((await svc.request("/api/demo?vertical=ai-compliance")).body);
  });
});
