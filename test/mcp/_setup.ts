/**
 * Shared by the MCP suites: the real service over the runtime fixture (or a given content tree)
 * on a real port, raw JSON-RPC POSTs, and key issuance through the admin API.
 */
import { request as httpRequest } from "node:http";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

export const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export async function startMcpService(contentDir = writeFixtureContent(), env: Record<string, string> = {}): Promise<TestService> {
  return startTestService(buildContentTo(contentDir), env);
}

/** One POST /mcp with the headers a conforming client sends, plus `headers`. */
export async function mcpPost(svc: TestService, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const res = await fetch(`${svc.url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null,
  };
}

/** A JSON-RPC request; returns the parsed response body (status asserted 200). */
export async function rpc(
  svc: TestService,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<any> {
  const res = await mcpPost(svc, { jsonrpc: "2.0", id: 1, method, params }, headers);
  if (res.status !== 200) throw new Error(`${method}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

/**
 * POST through node:http, which (unlike fetch) lets a test set `Host` itself: how a browser
 * behind DNS rebinding would arrive.
 */
export function rawPost(
  url: string,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(path, url),
      { method: "POST", headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

export async function issueKey(svc: TestService, vertical: string): Promise<string> {
  const res = await svc.request("/api/keys", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: { vertical } });
  if (res.status !== 201) throw new Error(`key issuance failed: ${res.status} ${res.text}`);
  return res.body.keys[0].key as string;
}

export async function trialKey(svc: TestService, agentId: string, vertical?: string): Promise<string> {
  const res = await svc.request("/api/trial", { method: "POST", json: { agent_id: agentId, ...(vertical ? { vertical } : {}) } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`trial failed: ${res.status} ${res.text}`);
  return res.body.key as string;
}

/** Calls used this hour by a key, as GET /api/keys reports them. */
export async function hourlyUsage(svc: TestService, key: string): Promise<number> {
  return (await svc.request("/api/keys", { headers: { "x-service-key": key } })).body.usage.hour as number;
}
