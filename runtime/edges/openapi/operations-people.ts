/**
 * Operations for the people around the service: operators (admin key listing and
 * revocation, metrics), content readers (the browse site, llms.txt) and agent developers (the root
 * description). Decisions the spec leaves open are recorded in each `description`.
 */
import { Type } from "@sinclair/typebox";
import {
  AdminKeyListSchema,
  AdminKeyViewSchema,
  AuditPageSchema,
  KeyUsageSchema,
  RerolledKeySchema,
  RerollKeyRequestSchema,
  RevokeKeyRequestSchema,
  UpdateKeyRequestSchema,
} from "../../shared/schema/admin-keys.ts";
import { ServiceDescriptionSchema } from "../../shared/schema/service-description.ts";
import type { Operation } from "./operations.ts";

const HTML = { "text/html": Type.String() };
const PROBLEM = Type.Unsafe<unknown>({ $ref: "Problem" });
/** Browse routes answer errors as an HTML page to browsers (`Accept: text/html`), problem+json otherwise. */
const PAGE_ERROR = (description: string, headers?: string[]) => ({
  description,
  content: { "application/problem+json": PROBLEM, ...HTML },
  ...(headers ? { headers } : {}),
});
const PAGE_ERRORS_NOTE =
  "Errors: a request whose `Accept` names text/html (and does not prefer JSON) gets an HTML error page with the same status, title, code, detail and hint; other callers get problem+json.";
/** The per-client page limit (runtime/domain/metering/page-limit.ts): HTML pages answer a friendly HTML page. */
const PAGE_LIMITED = {
  description: "Too many pages from this client in a minute (ANON_RATE_PER_MINUTE): a short HTML page saying how long to wait",
  headers: ["Retry-After"],
  content: HTML,
};
const TEXT_LIMITED = { description: "Too many pages from this client in a minute (ANON_RATE_PER_MINUTE)", headers: ["Retry-After"] };
const ADMIN_ERRORS = { 401: { description: "Admin authorization missing" }, 403: { description: "Admin key invalid" } };
/** A refused key reads the free pages, warned. */
const BAD_KEY_NOTE =
  "A malformed, unknown, revoked or expired key (header or cookie) reads what a visitor without a key reads: the page carries `Credential-Problem` and a visible notice linking to /browse/key, and a cookie that held the key is cleared (Set-Cookie with Max-Age=0). Only a page with no free view (a node of a paid vertical whose index is not free) keeps the key's 401.";

export const PEOPLE_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/admin/keys",
    operationId: "listKeys",
    metrics: "request",
    summary: "List keys (admin)",
    description: [
      "Admin bearer, as POST /api/keys (missing 401, wrong or ADMIN_KEY unset 403). `label` keeps only keys with exactly that label; without it every key is listed, oldest first, at most 1000.",
      "A separate path rather than an admin mode of GET /api/keys: that route answers a key holder about their own key, and mixing the two audiences on one path would make a missing key header ambiguous. Secrets and hashes are never listed; keys are named by their public id.",
    ].join("\n\n"),
    security: ["adminBearer"],
    params: [
      { name: "label", in: "query", schema: Type.String({ minLength: 1, maxLength: 100 }), description: "Only keys with this label" },
    ],
    responses: { 200: { description: "The keys, with usage, quota and revocation", schema: AdminKeyListSchema }, ...ADMIN_ERRORS },
  },
  {
    method: "get",
    path: "/api/admin/keys/usage",
    operationId: "getKeyUsage",
    metrics: "request",
    summary: "A key's daily usage history (admin)",
    description:
      "Admin bearer. The key's metered calls per UTC day over the last `days` (90) days, today included, oldest first, days without a call left out, and their `total`: the `usage_history` its holder sees in GET /api/keys. Today's count is live; earlier days are the day counters the meter kept, folded into the history once a day. `vkr keys usage` prints the same.",
    security: ["adminBearer"],
    params: [
      {
        name: "id",
        in: "query",
        required: true,
        schema: Type.String({ pattern: "^[0-9a-f]{12}$" }),
        description: "Public key id (as listed)",
      },
    ],
    responses: {
      200: { description: "The key's calls per day", schema: KeyUsageSchema },
      400: { description: "No id, or not a key id" },
      ...ADMIN_ERRORS,
      404: { description: "No such key" },
    },
  },
  {
    method: "post",
    path: "/api/admin/keys/revoke",
    operationId: "revokeKey",
    metrics: "request",
    summary: "Revoke a key (admin)",
    description: [
      "Body: exactly one of `id` (the public key id) or `key` (the full key). The key's status becomes `revoked` with `revoked_at`; revoking a revoked key answers 200 with the first revocation unchanged. Revocation is final (issue a new key instead of un-revoking).",
      "Every later request with the key is 401 `key_revoked`. Instances cache resolved keys for up to 1 s, so another instance may still accept the key for that long; the instance that revoked it refuses it at once. `vkr keys revoke` does the same on the store directly.",
    ].join("\n\n"),
    security: ["adminBearer"],
    body: RevokeKeyRequestSchema,
    responses: {
      200: { description: "The revoked key", schema: AdminKeyViewSchema },
      400: { description: "Invalid body" },
      ...ADMIN_ERRORS,
      404: { description: "No such key" },
    },
  },
  {
    method: "post",
    path: "/api/admin/keys/reroll",
    operationId: "rerollKey",
    metrics: "request",
    summary: "Re-roll a key's secret (admin)",
    description: [
      "Body: `id` or `key` (exactly one), and `grace_seconds` (default 86400, 0 to 2592000). The key keeps its record (id, usage, quota, account, label, expiry) and gets a new secret, answered once as `key`; the new secret works at once.",
      "The previous secret keeps working until `previous_valid_until`, then every request with it is 401 `key_rerolled` (`GET /api/verify` says `reason: rerolled`). A leaked key is replaced without cutting its holder off; with `grace_seconds: 0` the old secret stops at once. A revoked key is not re-rolled (409 `conflict`). `vkr keys reroll` does the same.",
    ].join("\n\n"),
    security: ["adminBearer"],
    body: RerollKeyRequestSchema,
    responses: {
      200: { description: "The new secret and the key", schema: RerolledKeySchema },
      400: { description: "Invalid body" },
      ...ADMIN_ERRORS,
      404: { description: "No such key" },
      409: { description: "The key is revoked" },
    },
  },
  {
    method: "post",
    path: "/api/admin/keys/update",
    operationId: "updateKey",
    metrics: "request",
    summary: "Edit a key's label or expiry (admin)",
    description:
      "Body: `id` or `key` (exactly one) and at least one of `label` (a string, or null to remove it) and `expires_at` (an ISO 8601 date or date-time, or null for no expiry). An expiry in the past makes the key expired at once (401 `key_expired`). `vkr keys label` and `vkr keys expire` do the same.",
    security: ["adminBearer"],
    body: UpdateKeyRequestSchema,
    responses: {
      200: { description: "The key as it is now", schema: AdminKeyViewSchema },
      400: { description: "Invalid body" },
      ...ADMIN_ERRORS,
      404: { description: "No such key" },
    },
  },
  {
    method: "get",
    path: "/api/admin/audit",
    operationId: "readAudit",
    metrics: "request",
    summary: "The audit trail (admin)",
    description: [
      "Every administrative and money event, newest first: keys issued, revoked, re-rolled, relabelled and given an expiry; every state a purchase enters (reserved, awaiting_payment, charging, unconfirmed, charged, issued, released, refund_due) and an operator's acknowledgement (`purchase.refunded` for a refund due); each payment method's configuration at start; releases published and rolled back. Each entry has its time, actor (an admin bearer as `admin:` and a digest prefix, `cli:<user>`, `payment:<method>`, `system`), action, subject, outcome, account and key ids.",
      "Filters: `key` (a key id), `account`, `action` (exact, or a prefix ending in `.` such as `purchase.`), `from` and `to` (ISO 8601, `to` exclusive). Pages of `limit` entries (default 100, at most 500); pass `next` as `cursor` for the next. Entries never hold a secret: no key, bearer, payment token or signature, no card data. Kept AUDIT_RETENTION_DAYS days. `vkr audit` prints the same.",
    ].join("\n\n"),
    security: ["adminBearer"],
    params: [
      { name: "key", in: "query", schema: Type.String({ pattern: "^[0-9a-f]{12}$" }), description: "Only entries about this key id" },
      {
        name: "account",
        in: "query",
        schema: Type.String({ minLength: 1, maxLength: 200 }),
        description: "Only entries about this account",
      },
      {
        name: "action",
        in: "query",
        schema: Type.String({ minLength: 1, maxLength: 60 }),
        description: "An action, or a prefix ending in .",
      },
      { name: "from", in: "query", schema: Type.String(), description: "From this time (ISO 8601)" },
      { name: "to", in: "query", schema: Type.String(), description: "Before this time (ISO 8601)" },
      { name: "cursor", in: "query", schema: Type.String(), description: "`next` of the previous page" },
      { name: "limit", in: "query", schema: Type.Integer({ minimum: 1, maximum: 500 }), description: "Entries per page (default 100)" },
    ],
    responses: {
      200: { description: "A page of entries", schema: AuditPageSchema },
      400: { description: "A bad filter or cursor" },
      ...ADMIN_ERRORS,
    },
  },
  {
    method: "get",
    path: "/metrics",
    operationId: "getMetrics",
    metrics: "request",
    security: ["metricsBearer", "none"],
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
    metrics: "request",
    security: ["none"],
    summary: "The service, for people and for agents",
    description:
      "Content negotiation on `Accept`: `application/json` (preferred over text/html by q-value or order) returns a short machine description (API version, build, verticals, links to /openapi.json, /docs, /browse, /llms.txt, /mcp); anything else returns an HTML page with the same links. `Vary: Accept`.",
    responses: {
      200: { description: "HTML page or JSON description", content: { ...HTML, "application/json": ServiceDescriptionSchema } },
    },
  },
  {
    method: "get",
    path: "/browse",
    operationId: "browseVerticals",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: the verticals",
    description:
      "Static HTML pages generated at build time from dist/data (no client framework, no script). Lists every vertical with its status and node count, and links to /docs. " +
      BAD_KEY_NOTE,
    responses: { 200: { description: "HTML page", content: HTML, headers: ["Credential-Problem", "Set-Cookie"] }, 429: PAGE_LIMITED },
  },
  {
    method: "get",
    path: "/browse/{vertical}",
    operationId: "browseVertical",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: a vertical's index as a graph picture",
    description: [
      "The vertical's index as an SVG graph laid out at build time in layers (readable size, scrolls in its own box; edges never cross a box): one shape per node, edges from `next_nodes`, trial modules marked, each shape a link to the node page; a table of the nodes below it. `ethics` answers as `ai-compliance`.",
      "Access is the index row of the access matrix (GET /api/demo without `node`): a paid vertical that is not index-free is 402 for a caller without credentials. A vertical without content is 404 here.",
      BAD_KEY_NOTE,
    ].join("\n\n"),
    params: [{ name: "vertical", in: "path", required: true, schema: Type.String() }],
    responses: {
      200: { description: "HTML page", content: HTML, headers: ["Credential-Problem", "Set-Cookie"] },
      401: PAGE_ERROR("Bad key on a vertical with no free index", ["Set-Cookie"]),
      402: PAGE_ERROR("Paid vertical without credentials"),
      403: PAGE_ERROR("The key does not read this vertical"),
      404: PAGE_ERROR("Unknown vertical or no content"),
      429: PAGE_LIMITED,
    },
  },
  {
    method: "get",
    path: "/browse/{vertical}/{node}",
    operationId: "browseNode",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: one node",
    description: [
      "The node's page: summary, version, dates, sources and its four layers, with rules drawn as readable gate trees (ALL / ANY / NOT over facts and outcomes) and their citations.",
      "Both variants are pre-rendered at build time. Anonymous visitors of an index-free vertical get the locked variant (index layer only, with how to unlock); the full variant is served when the request carries credentials that unlock the node (X-Service-Key or `Authorization: Bearer svc_…`, or the key cookie set by POST /browse/key; same matrix as GET /api/demo; `?key=` is not accepted, so keys do not end up in browser history). A page answered while a key is presented counts as one retrieval, metered exactly like GET /api/demo (429 when a window is full), so the site is no way around a quota; anonymous pages are static and not metered.",
      "`{node}.md` (e.g. `/browse/travel/trv-eu261.md`) is the page's markdown twin: the same layers the caller may see, layer text as authored, rules as nested ALL / ANY / NOT lists; metered like the HTML page.",
      BAD_KEY_NOTE + " The markdown twin starts with the notice as a quote.",
      PAGE_ERRORS_NOTE,
    ].join("\n\n"),
    params: [
      { name: "vertical", in: "path", required: true, schema: Type.String() },
      { name: "node", in: "path", required: true, schema: Type.String() },
    ],
    responses: {
      200: {
        description: "HTML page, or markdown for `{node}.md`",
        content: { ...HTML, "text/markdown": Type.String() },
        headers: ["Credential-Problem", "Set-Cookie"],
      },
      401: PAGE_ERROR("Bad key on a node with no free view (a key cookie that stopped working is cleared with Set-Cookie)", ["Set-Cookie"]),
      402: PAGE_ERROR("Paid vertical without credentials"),
      403: PAGE_ERROR("The key does not read this vertical or module"),
      404: PAGE_ERROR("Unknown vertical or node"),
      429: PAGE_ERROR(
        "A quota window of the presented key is full, or too many pages from this client in a minute (ANON_RATE_PER_MINUTE)",
        ["Retry-After"],
      ),
    },
  },
  {
    method: "get",
    path: "/browse/key",
    operationId: "browseKeyForm",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: the form to read with a key",
    description:
      "A page with a form that posts a key to POST /browse/key once, and a log-out button (POST /browse/logout), built at build time. The runtime adds which key this browser reads with (its public id, kind, scope and expiry, never the key) and, after POST /browse/key (`?saved=1`), that it was saved. " +
      BAD_KEY_NOTE,
    params: [{ name: "saved", in: "query", schema: Type.String(), description: "1 after a key was posted: the page confirms the save" }],
    responses: { 200: { description: "HTML page", content: HTML, headers: ["Credential-Problem", "Set-Cookie"] }, 429: PAGE_LIMITED },
  },
  {
    method: "post",
    path: "/browse/key",
    operationId: "browseSetKey",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: keep a key for this browser",
    description: [
      "Body: an HTML form (`application/x-www-form-urlencoded`) with `key`. The key is checked (401 `key_invalid`, `key_revoked`, `key_expired` as everywhere), then kept in a cookie `vkr_key`: HttpOnly, SameSite=Strict, Path=/browse, Max-Age 30 days, Secure when the site is served over https (or PUBLIC_BASE_URL is https). 303 to /browse/key?saved=1, which confirms the save and names the key by its public id. The cookie is read by the browse routes only; API routes never accept it.",
      "CSRF: besides SameSite=Strict, the request's `Origin` must be this site's own origin (or PUBLIC_BASE_URL's); any other or a missing Origin is 403 `cross_site_form`. Setting the cookie consumes no quota; reading a gated page with it does.",
      PAGE_ERRORS_NOTE,
    ].join("\n\n"),
    responses: {
      303: { description: "Key kept; see /browse/key?saved=1", headers: ["Location", "Set-Cookie"] },
      400: PAGE_ERROR("No key in the form, or not a form"),
      401: PAGE_ERROR("The key is not valid, revoked or expired"),
      403: PAGE_ERROR("Cross-site form post (Origin missing or not this site)"),
      413: PAGE_ERROR("Form larger than 2 KB"),
    },
  },
  {
    method: "post",
    path: "/browse/logout",
    operationId: "browseLogout",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: forget the key",
    description: "Clears the key cookie (Set-Cookie with Max-Age=0) and answers 303 to /browse/key. Same Origin check as POST /browse/key.",
    responses: { 303: { description: "Cookie cleared", headers: ["Location", "Set-Cookie"] }, 403: PAGE_ERROR("Cross-site form post") },
  },
  {
    method: "get",
    path: "/browse/search",
    operationId: "browseSearch",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: search",
    description: [
      "The search box of every page (a GET form). Runs the same search as GET /api/search (up to 20 hits) for the caller (key header or key cookie), on the layers it may read, and lists the hits with links to their pages. Without `q` it shows the empty form.",
      "Metering and limits are those of GET /api/search: anonymous searches share the per-client limit, and a search over layers a key unlocked counts as one retrieval for that key.",
      BAD_KEY_NOTE,
      PAGE_ERRORS_NOTE,
    ].join("\n\n"),
    params: [
      { name: "q", in: "query", schema: Type.String({ maxLength: 200 }), description: "Search terms" },
      { name: "vertical", in: "query", schema: Type.String(), description: "A vertical slug; empty for every vertical the caller can see" },
    ],
    responses: {
      200: { description: "HTML page with the hits", content: HTML, headers: ["Credential-Problem", "Set-Cookie"] },
      400: PAGE_ERROR("Query too long or unknown vertical"),
      401: PAGE_ERROR("Bad key"),
      402: PAGE_ERROR("Paid vertical without credentials"),
      403: PAGE_ERROR("The key does not read this vertical"),
      429: PAGE_ERROR("Per-client or key limit reached", ["Retry-After"]),
    },
  },
  {
    method: "get",
    path: "/docs/{page}",
    operationId: "getGuide",
    metrics: "request",
    security: ["none"],
    summary: "The project's guides: README and docs/ as pages",
    description: [
      "The repository's README (`readme`), the index of its docs/ folder (`guides`), each page of docs/ by its file name (`configuration`, `endpoints`, `payments`, `operations`, `authoring`, `architecture`, `performance`, …) and the node field reference (`node-reference`), rendered from markdown at build time with the browse site's pipeline; the runtime serves the prebuilt HTML. Links between pages point at their /docs/ paths; headings carry GitHub's anchors.",
      "`/docs` itself (no page) is this API reference, since every problem's `type` points into it. Not limited per client: the pages hold no knowledge content.",
      PAGE_ERRORS_NOTE,
    ].join("\n\n"),
    params: [{ name: "page", in: "path", required: true, schema: Type.String(), description: "Page name, e.g. guides or configuration" }],
    responses: { 200: { description: "HTML page", content: HTML }, 404: PAGE_ERROR("No such page") },
  },
  {
    method: "get",
    path: "/llms.txt",
    operationId: "getLlmsTxt",
    metrics: "request",
    security: ["none"],
    summary: "llms.txt: the service and its verticals in markdown",
    description:
      "The llms.txt convention (an H1, a blockquote summary, then sections of links): every live vertical with a link to its index and each node's title and summary, the MCP endpoint (/mcp) and the docs. Generated at build time; free content only. Served as text/plain so browsers display it.",
    responses: { 200: { description: "Markdown", content: { "text/plain": Type.String() } }, 429: TEXT_LIMITED },
  },
  {
    method: "get",
    path: "/llms-full.txt",
    operationId: "getLlmsFullTxt",
    metrics: "request",
    security: ["none"],
    summary: "llms-full.txt: every vertical's index, and the full text of the fully open verticals",
    description:
      "The free index layer of every node of every live vertical (title, summary, version, next nodes, sources) in one markdown document, plus the four content layers (text, facts and rules) of the fully open verticals, which need no key anyway. Generated at build time; never contains a gated layer.",
    responses: { 200: { description: "Markdown", content: { "text/plain": Type.String() } }, 429: TEXT_LIMITED },
  },
];
