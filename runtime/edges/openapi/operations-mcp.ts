/**
 * OpenAPI entries of the agent surfaces added with MCP: `GET /api/search` and `POST /mcp`. The
 * decisions the spec leaves open are recorded in each `description`.
 */

import { Type } from "@sinclair/typebox";
import { SearchResponseSchema } from "../../shared/schema/search.ts";
import type { Operation } from "./operations.ts";
import { SIGNATURE_HEADERS } from "./operations-signing.ts";

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

export const MCP_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/search",
    operationId: "search",
    metrics: "request",
    mcp: ["search"],
    summary: "Ranked full-text search over the nodes you may read",
    description: [
      "Served from per-vertical indexes the build precomputes (`search/<vertical>.json`: postings per field, with term statistics over the whole build), so a query reads only its terms' posting lists, never every node.",
      "What is searched is the same for every caller: every node of the verticals in scope is ranked on its title (with the words of its id), the questions it declares it answers (authored, written the way people ask), its summary and its four layers, whatever the caller may read, so a key never moves a node up or down and a fully open vertical has no head start. What is returned follows the access matrix of GET /api/demo: only verticals the caller may see, and `snippet` is a sentence from the best-matching layer the caller has unlocked, else from the summary, so it never quotes a locked layer.",
      "Scope: `vertical` (aliases accepted; unknown 400; a vertical the caller may not see answers as GET /api/demo would, e.g. 402 or 403); omitted, every live vertical whose index the caller may see. Relevance: BM25F (k1 1.2), weighted title 3, questions 2.5, summary 1.5, logic 0.6, directive 0.4, skill and action 0.3, with document frequencies over every vertical; adjacent words also match as one term; deprecated nodes count half.",
      "Score, order and match: results come in `score` order, highest first (ties by relevance, then vertical and id). `score` (0–1) is the share of the query's weight that the node holds, each word counted by how strongly the node holds it, mostly in its title, questions and summary (rarer words weigh more; a word no node uses weighs as one a single node uses; a passing mention in a body layer counts little), times the node's relevance relative to the best-ranked node of this search. `match` says whether to answer from the results: `good` when the first result scores 0.45 or more, `poor` when there are results but the first covers little of the query (often a question about a rule the service does not cover, next to one it does), `none` when nothing matched. On `poor` and `none`, record the need with the free demand signal (POST /api/interest). Words too common to rank on are dropped (function words and the words questions are made of: how, do, I, can, what, …).",
      "Quota: a search is free unless its snippets may quote gated layers the caller unlocked (a vertical in scope that is not fully open and that the key covers, or, with a per-use pay token in `pay-network-pay-id`, any such vertical: the token unlocks every layer); then it counts as one retrieval for the key, whatever the number of hits, with the RateLimit headers, or is charged once at $0.002 like a content node request on GET /api/demo, with `Pay-Network-Charged` / `Pay-Network-Remaining` (the token is verified before anything is scored; invalid, expired, kya-only or used-up tokens are 402 as on GET /api/demo). Searching the index layer is never metered nor charged.",
      "A malformed, unknown, revoked or expired key searches as a caller without a key (the anonymous per-client limit applies) and is warned: the `Credential-Problem` header and a `credential_problem` member, as on GET /api/demo.",
      '`q`: 1 to 200 characters with at least one searchable word (words shorter than two letters and stopwords are dropped; words are Porter-stemmed, so plurals and inflections meet, and two adjacent words also match as one, so `deepfake`, `deep fake` and `deep-fake` meet); `limit` 1 to 50, default 10. Questions work as well as keywords: "do I need to tell users they are talking to an AI".',
    ].join("\n\n"),
    security: ["none", "serviceKey", "payToken"],
    params: [
      { name: "q", in: "query", required: true, schema: Type.String({ minLength: 1, maxLength: 200 }), description: "Words to search for" },
      { name: "vertical", in: "query", schema: Type.String(), description: "Limit to one vertical" },
      { name: "limit", in: "query", schema: Type.Integer({ minimum: 1, maximum: 50, default: 10 }), description: "Most results" },
      {
        name: "X-Service-Key",
        in: "header",
        schema: Type.String(),
        description: "Membership or trial key: also searches the layers it unlocks",
      },
    ],
    responses: {
      200: {
        description: "Results, best first",
        schema: SearchResponseSchema,
        headers: [
          "RateLimit",
          "RateLimit-Policy",
          "Pay-Network-Charged",
          "Pay-Network-Remaining",
          "Credential-Problem",
          ...SIGNATURE_HEADERS,
        ],
      },
      400: { description: "Missing or invalid q, unknown vertical, limit out of range" },
      402: { description: "The named vertical needs a key or payment, or a per-use token that is invalid, expired, kya-only or used up" },
      403: { description: "The key does not unlock the named vertical" },
      429: {
        description:
          "The key's quota is used up (metered searches only), or the anonymous per-client limit (ANON_RATE_PER_MINUTE, shared with nothing else) is reached",
      },
    },
  },
  {
    method: "post",
    path: "/mcp",
    operationId: "mcp",
    metrics: "retrieval",
    summary: "MCP endpoint (Streamable HTTP, JSON-RPC 2.0, stateless)",
    description: [
      "Protocol versions 2025-11-25 and 2025-06-18: initialize echoes a requested one of these, else answers 2025-11-25. A `MCP-Protocol-Version` header must be one of those two (what initialize negotiates), else 400; a request without it is served.",
      "Stateless: no `Mcp-Session-Id` is issued and one that is sent is ignored; every POST carries one JSON-RPC message and is answered with one `application/json` object (never SSE). get_node and get_index results are sent with `Content-Encoding: deflate` when `Accept-Encoding` admits it (Node's fetch and httpx send it by default; `Vary: Accept-Encoding`): the answer carries the node twice, as text and as `structuredContent`, and compresses about 6:1 (34 KiB to 6 KiB for a typical node). Notifications and client responses get 202 with no body. GET and DELETE /mcp answer 405 (`Allow: POST`).",
      "Methods: initialize, ping, tools/list, tools/call, prompts/list, prompts/get, resources/list, resources/read, resources/templates/list. Tools: list_verticals, get_index, get_node (lean, layers), search, evaluate_rules, get_changes, verify_key, each with an inputSchema taken from the REST request schemas and an outputSchema; results carry `structuredContent` and the same JSON as text; knowledge results (get_node, get_index, search, evaluate_rules, get_changes, and resources/read contents) carry in `_meta` the `content-digest` (of the text block), `knowledge-identity`, `signature-input` and `signature` a REST answer has as headers (see GET /.well-known/jwks.json). get_node and get_index are lean by default (knowledge only; `lean: false` adds the wrapper fields REST sends). Prompts: triage_ai_system, check_passenger_rights, explore_vertical. Resources: `vkr://about` (the wrapper fields, once), `vkr://<vertical>` (root index) and `vkr://<vertical>/<node>`.",
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
];
