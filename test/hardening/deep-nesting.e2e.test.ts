/**
 * Deeply nested JSON: about 4,100 arrays inside one another (8 KB) in any field of any JSON body
 * used to overflow the stack while the validation error was formatted (500, and -32603 on MCP).
 * Nesting is bounded on the text before it is parsed: every JSON-body operation of the OpenAPI
 * description answers 400 `json_too_deep` for each of its fields, and MCP answers -32600; a body
 * at the bound is still read and answered as usual.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS } from "../../runtime/edges/routes/index.ts";
import { MAX_JSON_DEPTH } from "../../runtime/shared/http/json-depth.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { ADMIN_KEY, startTestService, type TestService } from "../helpers/test-service.ts";

/**
 * Deeper than the report's 4,100 (which overflowed the bundled server): the in-process server
 * here overflowed at this depth before the fix, with its enum-typed fields answering 500.
 */
const DEEP = 30_000;
let svc: TestService;
let credentials: Record<string, string>;
beforeAll(async () => {
  svc = await startTestService(buildContentTo(writeFixtureContent()));
  const issued = await svc.request("/api/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    json: { vertical: "travel" },
  });
  credentials = { authorization: `Bearer ${ADMIN_KEY}`, "x-service-key": issued.body.keys[0].key };
});
afterAll(() => svc?.close());

/** `inner` inside `depth` arrays, as JSON text (JSON.stringify itself would overflow the stack). */
const nested = (depth: number, inner = '"travel"'): string => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

const withBody = OPERATIONS.filter((op) => op.body && "properties" in op.body && !op.path.startsWith("/mcp"));
const cases = withBody.flatMap((op) =>
  Object.keys((op.body as unknown as { properties: object }).properties).map((field) => [`POST ${op.path}`, field, op.path] as const),
);

describe("JSON bodies nested 4,100 deep", () => {
  it("covers every JSON-body operation", () => {
    expect(withBody.map((op) => op.path)).toEqual(expect.arrayContaining(["/api/checkout", "/api/telemetry", "/api/trial"]));
  });

  it.each(cases)("%s, field %s: 400 json_too_deep", async (_name, field, path) => {
    const res = await svc.request(path.replace(/\{(\w+)\}/g, "x"), {
      method: "POST",
      headers: { ...credentials, "idempotency-key": `deep-${field}`, "content-type": "application/json" },
      body: `{${JSON.stringify(field)}: ${nested(DEEP)}}`,
    });
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body.code).toBe("json_too_deep");
  });

  it("a body nested exactly to the bound is read and validated as usual", async () => {
    const res = await svc.request("/api/telemetry", {
      method: "POST",
      headers: { ...credentials, "content-type": "application/json" },
      body: `{"confidence_score": ${nested(MAX_JSON_DEPTH - 1, "0.5")}}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
  });

  it("brackets inside strings do not count", async () => {
    const res = await svc.request("/api/trial", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"agent_id": "${"[".repeat(500)}\\"${"{".repeat(500)}", "vertical": "travel"}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("validation_failed");
  });

  it("MCP: tools/call with deeply nested arguments answers -32600, never -32603", async () => {
    const res = await fetch(`${svc.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: `{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "get_index", "arguments": {"vertical": ${nested(DEEP)}}}}`,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it("MCP: a message nested to the bound is answered as usual", async () => {
    const res = await fetch(`${svc.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      // The arguments' own value sits at depth 4 of the message.
      body: `{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "get_index", "arguments": {"vertical": ${nested(MAX_JSON_DEPTH - 3)}}}}`,
    });
    const body = (await res.json()) as { error?: { code: number }; result?: { isError?: boolean } };
    expect(body.error?.code ?? 0).not.toBe(-32600);
    expect(body.error?.code ?? 0).not.toBe(-32603);
  });
});
