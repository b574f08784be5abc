/**
 * POST /mcp: MCP Streamable HTTP, stateless, JSON responses only (a small dispatcher on the
 * protocol's types rather than the SDK transport: several times the throughput, measured in
 * docs/performance.md, and no zod or ajv in the server bundle). Checks run in this order, each with its own status:
 *
 * 1. Host / Origin allow-list (DNS rebinding) → 403
 * 2. Content-Type must be application/json → 415
 * 3. Accept must admit application/json (absent counts as any) → 406
 * 4. MCP-Protocol-Version, when sent, must be one we speak → 400
 * 5. Body within MAX_BODY_BYTES → 413; valid JSON → 400 -32700; one JSON-RPC message → 400 -32600
 *    (an error whose request id cannot be read carries no `id`: see `rpcErrorBody`)
 * 6. Notifications and client responses → 202, empty; requests → 200 with a result or an error
 *
 * get_node and get_index results go out deflated to clients that accept it, spliced around the
 * request's id from a copy compressed once per artifact (`http/deflate-splice.ts`).
 *
 * No session is issued and a sent `Mcp-Session-Id` is ignored; credentials are re-read on every
 * POST, exactly as on REST. GET and DELETE → 405 (no server-initiated stream, no session to end).
 */

import { Type } from "@sinclair/typebox";
import type { H3Event } from "h3";
import { FastResponse } from "srvx";
import type { Caller } from "../../domain/access/credentials.ts";
import { requestCaller } from "../../domain/access/request-caller.ts";
import { boundedCache } from "../../shared/cache.ts";
import { isApiError } from "../../shared/errors.ts";
import { readRawText } from "../../shared/http/body.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { requestContext } from "../../shared/http/context.ts";
import { acceptsDeflate } from "../../shared/http/deflate-splice.ts";
import { baseHeaders, CREDENTIAL_VARY } from "../../shared/http/headers.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../shared/http/json-depth.ts";
import { parseQualityList } from "../../shared/http/quality-list.ts";
import { sendBytes, sendJson } from "../../shared/http/respond.ts";
import type { EdgeDeps } from "../edge-deps.ts";
import type { RouteDeclaration } from "../routes/route-declaration.ts";
import { defineRoutes } from "../routes/route-table.ts";
import type { McpContext, McpShared } from "./context.ts";
import { createHostGuard } from "./host-guard.ts";
import { RPC, RpcError, readMessage, rpcErrorBody, toResponseBody } from "./jsonrpc.ts";
import { ACCEPTED_VERSIONS, METHODS } from "./methods.ts";
import { toolSet } from "./tool-set.ts";
import { mcpTools } from "./tools.ts";

/** Encoded get_node / get_index results kept: the hot set of artifacts (each about twice its artifact's size). */
const RESULT_CACHE_ENTRIES = 256;
const JSON_MEDIA_RE = /^application\/json\s*(;|$)/i;

const JsonRpcErrorSchema = Type.Object({
  jsonrpc: Type.Literal("2.0"),
  /** Absent when the request's id could not be read (MCP's schema has no null id). */
  id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  error: Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
});
const JsonRpcResponseSchema = Type.Union([
  Type.Object({
    jsonrpc: Type.Literal("2.0"),
    id: Type.Union([Type.String(), Type.Integer()]),
    result: Type.Record(Type.String(), Type.Unknown()),
  }),
  JsonRpcErrorSchema,
]);
const rpcError = (description: string) => ({ description, content: { "application/json": JsonRpcErrorSchema } });

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "post",
    path: "/mcp",
    operationId: "mcp",
    metrics: "retrieval",
    summary: "MCP endpoint (Streamable HTTP, JSON-RPC 2.0, stateless)",
    // A function of the route table: the tool list is the one tools/list shows.
    description: (routes) =>
      [
        "Protocol versions 2025-11-25 and 2025-06-18: initialize echoes a requested one of these, else answers 2025-11-25. A `MCP-Protocol-Version` header must be one of those two (what initialize negotiates), else 400; a request without it is served.",
        "Stateless: no `Mcp-Session-Id` is issued and one that is sent is ignored; every POST carries one JSON-RPC message and is answered with one `application/json` object (never SSE). get_node and get_index results are sent with `Content-Encoding: deflate` when `Accept-Encoding` admits it (Node's fetch and httpx send it by default; `Vary: Accept-Encoding`): the answer carries the node twice, as text and as `structuredContent`, and compresses about 6:1 (34 KiB to 6 KiB for a typical node). Notifications and client responses get 202 with no body. GET and DELETE /mcp answer 405 (`Allow: POST`).",
        `Methods: initialize, ping, tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/read, resources/templates/list. Tools: ${mcpTools(
          routes,
        )
          .map((tool) => tool.listing ?? tool.name)
          .join(
            ", ",
          )}, each with an inputSchema taken from the REST request schemas and an outputSchema; results carry \`structuredContent\` and the same JSON as text; knowledge results (get_node, get_index, search, evaluate_rules, get_changes, and resources/read contents) carry in \`_meta\` the \`content-digest\` (of the text block), \`knowledge-identity\`, \`signature-input\` and \`signature\` a REST answer has as headers (see GET /.well-known/jwks.json). get_node and get_index are lean by default (knowledge only; \`lean: false\` adds the wrapper fields REST sends). Prompts: triage_ai_system, check_passenger_rights, explore_vertical. Resources: \`vkr://about\` (the wrapper fields, once), \`vkr://<vertical>\` (root index) and \`vkr://<vertical>/<node>\`.`,
        "Credentials as on REST: `X-Service-Key`, `Authorization: Bearer svc_…` (for clients that only send bearer tokens) or `pay-network-pay-id`, re-read on every POST. initialize, ping and the list methods need none. tools/call and resources/read go through the same access matrix, quota and RateLimit headers as GET /api/demo, POST /api/evaluate, GET /v1/delta and GET /api/search (the same functions).",
        "Errors: body not JSON → 400 -32700; a batch (JSON array) or an invalid envelope → 400 -32600 (id echoed when readable, else left out: MCP's schema allows no null id); unknown method → 200 -32601; `params` by position (an array), a list `cursor` (every list is one page; none is issued), unknown tool or prompt, non-object arguments, missing prompt arguments → 200 -32602; unexpected failure → 200 -32603 with a request id only. A tool that fails (invalid arguments, no access, quota) returns a result with `isError: true` whose text holds the REST problem (code, detail, hint, unlock options), without `structuredContent` (clients check that against the outputSchema). resources/read of an unknown URI → -32002; refused by the access matrix → -32001 with the problem as `data`.",
        "Transport checks in order: Host/Origin allow-list against DNS rebinding (localhost, 127.0.0.1 and [::1] on the listening port, PUBLIC_BASE_URL, MCP_ALLOWED_HOSTS, MCP_ALLOWED_ORIGINS; no Origin is allowed) → 403; Content-Type not application/json → 415; Accept present but not admitting application/json → 406 (clients that list only application/json are accepted, as we never stream); unsupported version → 400; body over MAX_BODY_BYTES → 413. These carry a JSON-RPC error without id and code -32000 (413: -32600).",
      ].join("\n\n"),
    security: ["none", "serviceKey", "payToken"],
    params: [
      { name: "MCP-Protocol-Version", in: "header", schema: Type.String(), description: "Negotiated protocol version" },
      { name: "X-Service-Key", in: "header", schema: Type.String(), description: "Membership or trial key for gated tools and resources" },
    ],
    body: Type.Object({
      jsonrpc: Type.Literal("2.0"),
      method: Type.String(),
      id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
      params: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Array(Type.Unknown())])),
    }),
    responses: {
      200: {
        description: "A JSON-RPC 2.0 response (result or error)",
        schema: JsonRpcResponseSchema,
        headers: ["RateLimit", "RateLimit-Policy"],
      },
      202: { description: "Notification or response accepted; no body" },
      400: rpcError("Parse error (-32700), batch or invalid envelope (-32600), or unsupported MCP-Protocol-Version (-32000)"),
      403: rpcError("Host or Origin not allowed (DNS rebinding protection)"),
      406: rpcError("Accept does not admit application/json"),
      413: rpcError("Body too large"),
      415: rpcError("Content-Type is not application/json"),
    },
  },
  {
    method: "get",
    path: "/mcp",
    operationId: "mcpGetNotAllowed",
    metrics: "request",
    undocumented: "a 405 (Allow: POST), described under POST /mcp",
  },
  {
    method: "delete",
    path: "/mcp",
    operationId: "mcpDeleteNotAllowed",
    metrics: "request",
    undocumented: "a 405 (Allow: POST), described under POST /mcp",
  },
];

export default defineRoutes(DECLARATIONS, (route, deps, table) => {
  const guard = createHostGuard(deps.config);
  const shared: McpShared = {
    deps,
    selector: deps.shared.layers,
    anonymous: deps.shared.freeReads.mcp,
    results: boundedCache(RESULT_CACHE_ENTRIES),
    tools: toolSet(mcpTools(table)),
  };

  const notAllowed = (event: H3Event) =>
    sendJson(
      event,
      405,
      rpcErrorBody(undefined, RPC.transport, "Method not allowed: this MCP endpoint is stateless and answers POST only."),
      {
        allow: "POST",
      },
    );
  route("mcpGetNotAllowed", notAllowed);
  route("mcpDeleteNotAllowed", notAllowed);

  route("mcp", async (event) => {
    const ctx = requestContext(event);
    const headers = event.req.headers;
    const refuse = (status: number, code: number, message: string) => sendJson(event, status, rpcErrorBody(undefined, code, message));

    // 1–4. Transport checks, before the body is read.
    const denied = guard.check(headers.get("host"), headers.get("origin"), _localPort(event, deps));
    if (denied) return refuse(403, RPC.transport, `Forbidden: ${denied}`);
    if (!JSON_MEDIA_RE.test(headers.get("content-type") ?? ""))
      return refuse(415, RPC.transport, "Unsupported Media Type: send the JSON-RPC message as application/json.");
    if (!_acceptsJson(headers.get("accept")))
      return refuse(406, RPC.transport, "Not Acceptable: this endpoint answers application/json; list it in Accept.");
    const version = headers.get("mcp-protocol-version");
    if (version !== null && !ACCEPTED_VERSIONS.has(version)) {
      return refuse(
        400,
        RPC.transport,
        `Bad Request: unsupported MCP-Protocol-Version "${version.slice(0, 40)}" (supported: ${[...ACCEPTED_VERSIONS].join(", ")}).`,
      );
    }

    // 5. One JSON-RPC message.
    let text: string;
    try {
      text = await readRawText(event, deps.config.maxBodyBytes);
    } catch (error) {
      if (isApiError(error) && error.code === "body_too_large")
        return refuse(413, RPC.invalidRequest, `Request too large: bodies are limited to ${deps.config.maxBodyBytes} bytes.`);
      throw error;
    }
    // Before parsing: validating a deeper message recurses past the stack (a -32603 by its shape).
    if (nestsDeeperThan(text, MAX_JSON_DEPTH))
      return refuse(400, RPC.invalidRequest, `Invalid Request: the message nests deeper than ${MAX_JSON_DEPTH} levels.`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return refuse(400, RPC.parseError, "Parse error: the body is not valid JSON.");
    }
    let message;
    try {
      message = readMessage(parsed);
    } catch (error) {
      const e = error as RpcError;
      const id = (e.data as { id?: string | number } | undefined)?.id;
      return sendJson(event, 400, rpcErrorBody(id, e.code, e.message));
    }
    if (message.kind !== "request") return new FastResponse(null, { status: 202, headers: baseHeaders(ctx.requestId) });

    // 6. Dispatch.
    const handler = Object.hasOwn(METHODS, message.method) ? METHODS[message.method]! : undefined;
    if (!handler)
      return sendJson(event, 200, rpcErrorBody(message.id, RPC.methodNotFound, `Method not found: ${message.method.slice(0, 64)}`));
    if (Array.isArray(message.params))
      return sendJson(
        event,
        200,
        rpcErrorBody(message.id, RPC.invalidParams, `Invalid params: MCP methods take "params" by name, as an object.`),
      );
    const mcp = _context(event, shared);
    try {
      const result = await handler(mcp, message.params);
      const headers = mcp.headers;
      headers["cache-control"] ??= "no-store";
      headers.vary = `${CREDENTIAL_VARY}, Accept-Encoding`;
      const { body, encoding } = toResponseBody(message.id, result, acceptsDeflate(event.req.headers.get("accept-encoding")));
      if (encoding) headers["content-encoding"] = encoding;
      return sendBytes(event, 200, body, headers);
    } catch (error) {
      if (error instanceof RpcError) return sendJson(event, 200, rpcErrorBody(message.id, error.code, error.message, error.data));
      deps.logger.error("mcp method failed", {
        request_id: ctx.requestId,
        method: message.method,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
      return sendJson(event, 200, rpcErrorBody(message.id, RPC.internalError, `Internal error; request id ${ctx.requestId}.`));
    }
  });
});

// --- Internal helpers ---

function _context(event: H3Event, shared: McpShared): McpContext {
  const ctx = requestContext(event);
  const { deps } = shared;
  const slot = requestCaller(event, deps);
  const now = deps.clock.now();
  const resolve = () => slot.caller();
  // Fields listed, not spread: spreading `shared` took about 7% of a tools/call in profiles.
  return {
    deps,
    selector: shared.selector,
    anonymous: shared.anonymous,
    results: shared.results,
    tools: shared.tools,
    now,
    requestId: ctx.requestId,
    client: () => clientAddress(event, deps.config),
    presentedKey: slot.credentials().key,
    caller: resolve,
    reader: () => slot.reader(),
    callerOrAnonymous: () =>
      resolve().catch((error: unknown): Caller => {
        if (isApiError(error)) return { kind: "anonymous" };
        throw error;
      }),
    headers: {},
  };
}

/** The port the request arrived on (the socket's, not the Host header's); the configured port off-socket. */
function _localPort(event: H3Event, deps: EdgeDeps): number {
  const socket = (event.req as { runtime?: { node?: { req?: { socket?: { localPort?: number } } } } }).runtime?.node?.req?.socket;
  return socket?.localPort ?? deps.config.port;
}

/** Absent, `*\/*`, `application/*` or `application/json` (with q > 0); text/event-stream alone is refused. */
function _acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === "") return true;
  return parseQualityList(accept).some(
    ({ value, q }) => q > 0 && (value === "application/json" || value === "application/*" || value === "*/*"),
  );
}
