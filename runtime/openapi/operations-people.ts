/**
 * Operations for the people around the service (issue 10): operators (admin key listing and
 * revocation, metrics), content readers (the browse site, llms.txt) and agent developers (the root
 * description). Decisions the spec leaves open are recorded in each `description`.
 */
import { Type } from "@sinclair/typebox";
import { AdminKeyListSchema, AdminKeyViewSchema, RevokeKeyRequestSchema } from "../schema/admin-keys.ts";
import { ServiceDescriptionSchema } from "../schema/service-description.ts";
import type { Operation } from "./operations.ts";

const HTML = { "text/html": Type.String() };
const ADMIN_ERRORS = { 401: { description: "Admin authorization missing" }, 403: { description: "Admin key invalid" } };

export const PEOPLE_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/admin/keys",
    operationId: "listKeys",
    summary: "List keys (admin)",
    description: [
      "Admin bearer, as POST /api/keys (missing 401, wrong or ADMIN_KEY unset 403). `label` keeps only keys with exactly that label; without it every key is listed, oldest first, at most 1000.",
      "A separate path rather than an admin mode of GET /api/keys: that route answers a key holder about their own key, and mixing the two audiences on one path would make a missing key header ambiguous. Secrets and hashes are never listed; keys are named by their public id.",
    ].join("\n\n"),
    security: ["adminBearer"],
    params: [{ name: "label", in: "query", schema: Type.String({ minLength: 1, maxLength: 100 }), description: "Only keys with this label" }],
    responses: { 200: { description: "The keys, with usage, quota and revocation", schema: AdminKeyListSchema }, ...ADMIN_ERRORS },
  },
  {
    method: "post",
    path: "/api/admin/keys/revoke",
    operationId: "revokeKey",
    summary: "Revoke a key (admin)",
    description: [
      "Body: exactly one of `id` (the public key id) or `key` (the full key). The key's status becomes `revoked` with `revoked_at`; revoking a revoked key answers 200 with the first revocation unchanged. Revocation is final (issue a new key instead of un-revoking).",
      "Every later request with the key is 401 `key_revoked`. Instances cache resolved keys for up to 1 s, so another instance may still accept the key for that long; the instance that revoked it refuses it at once. `vkr keys revoke` does the same on the store directly.",
    ].join("\n\n"),
    security: ["adminBearer"],
    body: RevokeKeyRequestSchema,
    responses: { 200: { description: "The revoked key", schema: AdminKeyViewSchema }, 400: { description: "Invalid body" }, ...ADMIN_ERRORS, 404: { description: "No such key" } },
  },
  {
    method: "get",
    path: "/metrics",
    operationId: "getMetrics",
    summary: "Prometheus metrics",
    description: [
      "Prometheus text exposition: `vkr_http_requests_total{route,method,status}`, `vkr_http_request_duration_seconds{route,method}` (histogram), `vkr_retrievals_total{route}` (2xx on /api/demo, /api/evaluate, /v1/delta, /mcp), `vkr_quota_denials_total{window,code}` (window: hour, day, month, pool, trial, or `client` for per-address limits), `vkr_build_info{build_id,api_version}` and `vkr_store_up{store}` (pinged at scrape time), plus none of prom-client's process defaults., `vkr_payment_outcomes_total{method,outcome}` (POST /api/checkout by payment_method; outcome issued 201, redirect 303, failed 402, conflict 409, unavailable 503, info 200, else the status number)",
      "`route` is the matched route pattern (`unmatched` for 404s), never the raw path, so label values stay bounded. Counters are per process: scrape every instance.",
      "With METRICS_TOKEN set a bearer is required (missing 401 `admin_auth_missing`, wrong 403 `admin_auth_invalid`); unset, the endpoint is open.",
    ].join("\n\n"),
    responses: {
      200: { description: "Metrics in Prometheus text format 0.0.4", content: { "text/plain": Type.String() } },
      401: { description: "METRICS_TOKEN is set and no bearer was sent" },
      403: { description: "Wrong bearer" },
    },
  },
  {
    method: "get",
    path: "/",
    operationId: "getRoot",
    summary: "The service, for people and for agents",
    description:
      "Content negotiation on `Accept`: `application/json` (preferred over text/html by q-value or order) returns a short machine description (API version, build, verticals, links to /openapi.json, /docs, /browse, /llms.txt); anything else returns an HTML page with the same links. `Vary: Accept`.",
    responses: { 200: { description: "HTML page or JSON description", content: { ...HTML, "application/json": ServiceDescriptionSchema } } },
  },
  {
    method: "get",
    path: "/browse",
    operationId: "browseVerticals",
    summary: "Browse site: the verticals",
    description:
      "Static HTML pages generated at build time from dist/data (no client framework, no script). Lists every vertical with its status and node count, and links to /docs.",
    responses: { 200: { description: "HTML page", content: HTML } },
  },
  {
    method: "get",
    path: "/browse/{vertical}",
    operationId: "browseVertical",
    summary: "Browse site: a vertical's index as a graph picture",
    description: [
      "The vertical's index as an SVG graph laid out at build time with dagre: one shape per node, edges from `next_nodes`, trial modules marked, each shape a link to the node page; a table of the nodes below it. `ethics` answers as `ai-compliance`.",
      "Access is the index row of the access matrix (GET /api/demo without `node`): a paid vertical that is not index-free is 402 for a caller without credentials. A vertical without content is 404 here.",
    ].join("\n\n"),
    params: [{ name: "vertical", in: "path", required: true, schema: Type.String() }],
    responses: { 200: { description: "HTML page", content: HTML }, 401: { description: "Bad key" }, 402: { description: "Paid vertical without credentials" }, 403: { description: "The key does not read this vertical" }, 404: { description: "Unknown vertical or no content" } },
  },
  {
    method: "get",
    path: "/browse/{vertical}/{node}",
    operationId: "browseNode",
    summary: "Browse site: one node",
    description: [
      "The node's page: summary, version, dates, sources and its four layers, with rules drawn as readable gate trees (ALL / ANY / NOT over facts and outcomes) and their citations.",
      "Both variants are pre-rendered at build time. Anonymous visitors of an index-free vertical get the locked variant (index layer only, with how to unlock); the full variant is served when the request carries credentials that unlock the node (X-Service-Key or `Authorization: Bearer svc_…`, same matrix as GET /api/demo; `?key=` is not accepted, so keys do not end up in browser history). A page answered while a key is presented counts as one retrieval, metered exactly like GET /api/demo (429 when a window is full), so the site is no way around a quota; anonymous pages are static and not metered.",
    ].join("\n\n"),
    params: [
      { name: "vertical", in: "path", required: true, schema: Type.String() },
      { name: "node", in: "path", required: true, schema: Type.String() },
    ],
    responses: {
      200: { description: "HTML page", content: HTML },
      401: { description: "Bad key" },
      402: { description: "Paid vertical without credentials" },
      403: { description: "The key does not read this vertical or module" },
      404: { description: "Unknown vertical or node" },
      429: { description: "A quota window of the presented key is full", headers: ["Retry-After"] },
    },
  },
  {
    method: "get",
    path: "/llms.txt",
    operationId: "getLlmsTxt",
    summary: "llms.txt: the service and its verticals in markdown",
    description: "The llms.txt convention (an H1, a blockquote summary, then sections of links): every live vertical with a link to its index and each node's title and summary. Generated at build time; free content only. Served as text/plain so browsers display it.",
    responses: { 200: { description: "Markdown", content: { "text/plain": Type.String() } } },
  },
  {
    method: "get",
    path: "/llms-full.txt",
    operationId: "getLlmsFullTxt",
    summary: "llms-full.txt: the free index of every vertical in full",
    description: "The free index layer of every node of every live vertical (title, summary, version, next nodes, sources) in one markdown document. Generated at build time; never contains gated layers.",
    responses: { 200: { description: "Markdown", content: { "text/plain": Type.String() } } },
  },
];
