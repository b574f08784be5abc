/**
 * POST /mcp at the wire: every transport status (403, 405, 406, 413, 415, 400, 202) and every
 * JSON-RPC error code, with raw HTTP requests against the real service on a real port.
 */

import { JSONRPCErrorResponseSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { MCP_HEADERS, mcpPost, rawPost, rpc, startMcpService } from "./_setup.ts";

let svc: TestService;
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

beforeAll(async () => {
  svc = await startMcpService(undefined, {
    MAX_BODY_BYTES: "4096",
    MCP_ALLOWED_ORIGINS: "https://agent.example",
    PUBLIC_BASE_URL: "https://kb.example.org",
  });
});
afterAll(() => svc?.close());

describe("initialize and version negotiation", () => {
  it("echoes a supported version with capabilities and serverInfo, and issues no session", async () => {
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await mcpPost(svc, { ...INIT, params: { ...INIT.params, protocolVersion: version } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(res.headers.get("mcp-session-id")).toBeNull();
      expect(res.body).toMatchObject({
        jsonrpc: "2.0",
        id: 1,
        result: {
          protocolVersion: version,
          capabilities: { tools: {}, prompts: {}, resources: {} },
          serverInfo: { name: "vertical-knowledge-retrieval" },
        },
      });
    }
  });

  it("answers an unknown requested version with the latest it speaks", async () => {
    const res = await mcpPost(svc, { ...INIT, params: { ...INIT.params, protocolVersion: "2099-01-01" } });
    expect(res.body.result.protocolVersion).toBe("2025-11-25");
  });

  it("refuses an unsupported MCP-Protocol-Version header with 400", async () => {
    const res = await mcpPost(svc, { jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-protocol-version": "1999-01-01" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    expect(res.body.error.message).toContain("1999-01-01");
  });

  it("accepts in MCP-Protocol-Version exactly the versions initialize negotiates, and no header at all", async () => {
    for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
      const init = await mcpPost(svc, { ...INIT, params: { ...INIT.params, protocolVersion: version } });
      const negotiated = init.body.result.protocolVersion === version;
      const res = await mcpPost(svc, { jsonrpc: "2.0", id: 3, method: "ping" }, { "mcp-protocol-version": version });
      expect(res.status, `${version}: negotiated ${negotiated}`).toBe(negotiated ? 200 : 400);
    }
    expect((await mcpPost(svc, { jsonrpc: "2.0", id: 3, method: "ping" })).status).toBe(200);
  });

  it("ignores a session id sent by the client", async () => {
    const res = await mcpPost(svc, { jsonrpc: "2.0", id: 4, method: "ping" }, { "mcp-session-id": "made-up-session" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
  });
});

describe("transport statuses", () => {
  it("GET and DELETE are 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${svc.url}/mcp`, { method, headers: { accept: "text/event-stream" } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect((await res.json()).error.code).toBe(-32000);
    }
  });

  it("a notification or a client response is 202 with an empty body", async () => {
    const note = await mcpPost(svc, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-protocol-version": "2025-11-25" });
    expect(note.status).toBe(202);
    expect(note.text).toBe("");
    const response = await mcpPost(svc, { jsonrpc: "2.0", id: 9, result: {} });
    expect(response.status).toBe(202);
    expect(response.text).toBe("");
  });

  it("a non-JSON Content-Type is 415", async () => {
    const res = await mcpPost(svc, JSON.stringify(INIT), { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe(-32000);
  });

  it("an Accept without application/json is 406; application/json alone is accepted", async () => {
    const res = await mcpPost(svc, INIT, { accept: "text/event-stream" });
    expect(res.status).toBe(406);
    expect(res.body.error.code).toBe(-32000);
    expect((await mcpPost(svc, INIT, { accept: "text/html, application/json;q=0" })).status).toBe(406);
    expect((await mcpPost(svc, INIT, { accept: "application/json" })).status).toBe(200);
    expect((await mcpPost(svc, INIT, { accept: "text/event-stream, application/* ;q=0.5" })).status).toBe(200);
  });

  it("an oversized body is 413", async () => {
    const res = await mcpPost(svc, { ...INIT, params: { ...INIT.params, padding: "x".repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe(-32600);
  });
});

describe("DNS rebinding protection", () => {
  const body = JSON.stringify(INIT);
  const port = () => new URL(svc.url).port;

  it("refuses a foreign Host with 403", async () => {
    const res = await rawPost(svc.url, "/mcp", body, { ...MCP_HEADERS, host: "evil.example.com" });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
  });

  it("refuses a foreign Origin with 403, even on a local Host", async () => {
    const res = await rawPost(svc.url, "/mcp", body, { ...MCP_HEADERS, host: `localhost:${port()}`, origin: "http://evil.example.com" });
    expect(res.status).toBe(403);
    const other = await rawPost(svc.url, "/mcp", body, { ...MCP_HEADERS, host: `localhost:${port()}`, origin: "http://localhost:1" });
    expect(other.status).toBe(403);
  });

  it("refuses localhost on another port", async () => {
    expect((await rawPost(svc.url, "/mcp", body, { ...MCP_HEADERS, host: "localhost:1" })).status).toBe(403);
  });

  it("accepts local hosts on the listening port, allow-listed origins, the public host, and no Origin", async () => {
    const cases: Array<Record<string, string>> = [
      { host: `localhost:${port()}`, origin: `http://localhost:${port()}` },
      { host: `127.0.0.1:${port()}` },
      { host: `127.0.0.1:${port()}`, origin: "https://agent.example" },
      { host: "kb.example.org", origin: "https://kb.example.org" },
    ];
    for (const headers of cases) {
      const res = await rawPost(svc.url, "/mcp", body, { ...MCP_HEADERS, ...headers });
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });
});

describe("JSON-RPC errors", () => {
  it("invalid JSON is 400 -32700, with no id (none could be read)", async () => {
    const res = await mcpPost(svc, "{");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: "2.0", error: { code: -32700, message: expect.any(String) } });
  });

  it("a batch is 400 -32600", async () => {
    const res = await mcpPost(svc, [INIT, { jsonrpc: "2.0", id: 2, method: "ping" }]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: -32600 } });
    expect(res.body.error.message).toMatch(/batch/i);
  });

  it("an invalid envelope is 400 -32600, echoing a readable id", async () => {
    for (const [message, id] of [
      [{ jsonrpc: "1.0", method: "ping", id: 1 }, 1],
      [{ jsonrpc: "2.0", id: "a" }, "a"],
      [{ jsonrpc: "2.0", method: 5, id: 2 }, 2],
      [{ jsonrpc: "2.0", method: "ping", id: null }, undefined],
      [{ jsonrpc: "2.0", method: "ping", id: 1.5 }, undefined],
      [{ jsonrpc: "2.0", method: "ping", id: 3, params: "x" }, 3],
      ["just a string", undefined],
    ] as const) {
      const res = await mcpPost(svc, typeof message === "string" ? JSON.stringify(message) : message);
      expect(res.status, JSON.stringify(message)).toBe(400);
      expect(res.body, JSON.stringify(message)).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
      expect(res.body.id, JSON.stringify(message)).toBe(id);
    }
  });

  it("answers every refusal as an error response both JSON-RPC 2.0 and the MCP schema accept", async () => {
    const answers = [
      await mcpPost(svc, "{"),
      await mcpPost(svc, [INIT]),
      await mcpPost(svc, { jsonrpc: "1.0", method: "ping", id: 1 }),
      await mcpPost(svc, { jsonrpc: "2.0", method: "ping", id: null }),
      await mcpPost(svc, { jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-protocol-version": "1999-01-01" }),
      await mcpPost(svc, { jsonrpc: "2.0", id: 3, method: "nope" }),
      {
        status: 403,
        body: JSON.parse((await rawPost(svc.url, "/mcp", JSON.stringify(INIT), { ...MCP_HEADERS, host: "evil.example" })).text),
      },
    ];
    for (const { body } of answers) {
      // MCP: JSONRPCErrorResponse, whose id is a string or an integer, omitted when the request's could not be read.
      expect(JSONRPCErrorResponseSchema.safeParse(body).error?.issues ?? [], JSON.stringify(body)).toEqual([]);
      // JSON-RPC 2.0 §5: "jsonrpc", an error object with an integer code and a string message, no result;
      // the request's own id whenever it could be read.
      expect(body.jsonrpc).toBe("2.0");
      expect(Number.isInteger(body.error.code) && typeof body.error.message === "string").toBe(true);
      expect("result" in body).toBe(false);
    }
    expect(answers.map((a) => a.body.id)).toEqual([undefined, undefined, 1, undefined, undefined, 3, undefined]);
  });

  it("array params are -32602 (a well-formed request whose params the method cannot take), echoing the id", async () => {
    const res = await mcpPost(svc, { jsonrpc: "2.0", method: "tools/list", id: 4, params: [1] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: 4, error: { code: -32602 } });
  });

  it("a list cursor this server never issued is -32602", async () => {
    for (const method of ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]) {
      for (const cursor of ["not-a-cursor", 5]) {
        const answer = await rpc(svc, method, { cursor });
        expect(answer.error, `${method} ${JSON.stringify(cursor)}`).toMatchObject({ code: -32602 });
      }
      expect((await rpc(svc, method, {})).result, method).toBeDefined();
    }
  });

  it("an unknown method is -32601", async () => {
    const res = await mcpPost(svc, { jsonrpc: "2.0", id: 7, method: "nope" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it("an unknown tool, prompt, or non-object arguments are -32602", async () => {
    expect((await rpc(svc, "tools/call", { name: "no_such_tool", arguments: {} })).error.code).toBe(-32602);
    expect((await rpc(svc, "tools/call", { name: "get_node", arguments: [1] })).error.code).toBe(-32602);
    expect((await rpc(svc, "tools/call", { name: "get_node", arguments: "x" })).error.code).toBe(-32602);
    expect((await rpc(svc, "prompts/get", { name: "no_such_prompt" })).error.code).toBe(-32602);
    expect((await rpc(svc, "prompts/get", { name: "triage_ai_system", arguments: {} })).error.code).toBe(-32602);
    expect((await rpc(svc, "prompts/get", { name: "triage_ai_system", arguments: { system: 3 } })).error.code).toBe(-32602);
  });

  it("an unknown resource is -32002, an unreadable one -32001 with the problem", async () => {
    expect((await rpc(svc, "resources/read", { uri: "vkr://travel/no-such-node" })).error).toMatchObject({
      code: -32002,
      data: { uri: "vkr://travel/no-such-node" },
    });
    expect((await rpc(svc, "resources/read", { uri: "https://elsewhere/x" })).error.code).toBe(-32002);
    expect((await rpc(svc, "resources/read", { uri: 5 })).error.code).toBe(-32602);
    const legal = await rpc(svc, "resources/read", { uri: "vkr://legal/legal-one" });
    expect(legal.error).toMatchObject({ code: -32001, data: { status: 402, code: "payment_required" } });
  });

  it("tool argument failures are isError results, not protocol errors", async () => {
    const res = await rpc(svc, "tools/call", { name: "get_node", arguments: { vertical: "travel" } });
    expect(res.result.isError).toBe(true);
    expect(res.result.content[0].text).toContain("validation_failed");
    const extra = await rpc(svc, "tools/call", { name: "search", arguments: { q: "x y", surprise: 1 } });
    expect(extra.result.isError).toBe(true);
  });
});
