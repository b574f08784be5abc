/**
 * get_node and get_index answers are sent deflate-encoded to clients that accept it (Node's fetch
 * sends `gzip, deflate`, httpx the same), spliced from a once-compressed artifact around each
 * request's JSON-RPC id; the inflated answer is byte for byte the identity answer.
 */
import { request } from "node:http";
import { inflateSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { issueKey, MCP_HEADERS, startMcpService } from "./_setup.ts";

let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startMcpService();
  key = await issueKey(svc, "travel");
});
afterAll(() => svc?.close());

/** node:http, so nothing decodes the body on the way. */
function post(
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  const url = new URL(`${svc.url}/mcp`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { ...MCP_HEADERS, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const call = (id: string | number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

it("sends get_node deflated when accepted, identical once inflated, for any id", async () => {
  for (const id of [7, 'ü-"x"', 2 ** 40]) {
    const body = call(id, "get_node", { vertical: "travel", node: "trv-m1" });
    const plain = await post(body, { "x-service-key": key, "accept-encoding": "identity" });
    const packed = await post(body, { "x-service-key": key, "accept-encoding": "gzip, deflate" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(packed.headers["content-encoding"]).toBe("deflate");
    expect(String(packed.headers.vary)).toMatch(/Accept-Encoding/);
    expect(Number(packed.headers["content-length"])).toBe(packed.bytes.byteLength);
    expect(inflateSync(packed.bytes).equals(plain.bytes)).toBe(true);
    expect(JSON.parse(plain.bytes.toString("utf8")).id).toBe(id);
    expect(packed.bytes.byteLength).toBeLessThan(plain.bytes.byteLength / 2);
  }
});

it("sends get_index deflated too, and small answers as they are", async () => {
  const index = await post(call(1, "get_index", { vertical: "travel" }), { "accept-encoding": "deflate" });
  expect(index.headers["content-encoding"]).toBe("deflate");
  expect(JSON.parse(inflateSync(index.bytes).toString("utf8")).result.structuredContent).toBeTruthy();
  const list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "accept-encoding": "deflate" });
  expect(list.headers["content-encoding"]).toBeUndefined();
  expect(JSON.parse(list.bytes.toString("utf8")).result.tools.length).toBeGreaterThan(0);
});

it("never deflates for a client that refuses it", async () => {
  const res = await post(call(1, "get_node", { vertical: "travel", node: "trv-m1" }), {
    "x-service-key": key,
    "accept-encoding": "gzip, deflate;q=0",
  });
  expect(res.headers["content-encoding"]).toBeUndefined();
  expect(JSON.parse(res.bytes.toString("utf8")).result.structuredContent).toBeTruthy();
});
