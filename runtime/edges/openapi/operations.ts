/**
 * The operation table of the published OpenAPI description: one entry per endpoint, pointing at
 * the same TypeBox schemas the validators and responses use. Decisions the spec leaves open are
 * written into `description`, so /openapi.json is where they are recorded.
 */
import { type TSchema, Type } from "@sinclair/typebox";
import { IndexGraphSchema, LeanIndexGraphSchema, LeanNodeResponseSchema, NodeResponseSchema } from "../../shared/schema/artifacts.ts";
import { EvaluateRequestSchema, IssueKeysRequestSchema, TrialRequestSchema } from "../../shared/schema/requests.ts";
import {
  DeltaResponseSchema,
  EvaluateResponseSchema,
  KeysIssuedSchema,
  OwnKeyDetailsSchema,
  TrialResponseSchema,
  VerifyResponseSchema,
  VerticalPlaceholderSchema,
} from "../../shared/schema/responses.ts";
import { StatusObjectSchema } from "../../shared/schema/status.ts";
import type { RouteDeclaration } from "../routes/route-declaration.ts";
import { GROWTH_OPERATIONS } from "./operations-growth.ts";
import { MCP_OPERATIONS } from "./operations-mcp.ts";
import { PAYMENT_OPERATIONS } from "./operations-payments.ts";
import { PEOPLE_OPERATIONS } from "./operations-people.ts";
import { SIGNATURE_HEADERS, SIGNING_OPERATIONS } from "./operations-signing.ts";
import { perUseParagraphs, perUseParams, perUseResponseHeaders } from "./per-use-openapi.ts";

export interface OperationParam {
  name: string;
  in: "query" | "header" | "path";
  required?: boolean;
  schema: TSchema;
  description?: string;
}

/** A documented route: its declaration (method, path, metrics, MCP twins) and its OpenAPI text. */
export interface Operation extends RouteDeclaration {
  method: "get" | "post";
  summary: string;
  description?: string;
  /** Required: "none" alone is anonymous (`security: []`); with others, anonymous is one of the options. */
  security: Array<"serviceKey" | "serviceKeyQuery" | "payToken" | "adminBearer" | "metricsBearer" | "none">;
  params?: OperationParam[];
  body?: TSchema;
  /** Success and error statuses; errors are problem+json. */
  responses: Record<number, { description: string; schema?: TSchema; headers?: string[]; content?: Record<string, TSchema> }>;
}

const KEY_HEADER: OperationParam = {
  name: "X-Service-Key",
  in: "header",
  schema: Type.String(),
  description: "Membership (svc_live_…) or trial (svc_trial_…) key",
};
const RATE_HEADERS = ["RateLimit", "RateLimit-Policy"];

/** Status, retrieval, trial, keys, verify, health. Other areas keep theirs in `operations-<area>.ts`. */
const CORE_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/status",
    operationId: "getStatus",
    metrics: "request",
    security: ["none"],
    summary: "System status",
    description:
      "The status object of the spec. Counts are computed from content and state; `retrieval_limits` are the limits in force (RETRIEVAL_LIMITS may raise them). `per_use` lists the reads a caller can pay for one at a time instead of holding a key, per payment method this deployment offers (agent_network: a pay token in `pay-network-pay-id`; http402: x402 with `pay=x402`), with the price and how.",
    responses: { 200: { description: "The status object", schema: StatusObjectSchema } },
  },
  {
    method: "get",
    path: "/api/demo",
    operationId: "getDemo",
    metrics: "retrieval",
    mcp: ["get_index", "get_node"],
    summary: "Retrieve a node or a vertical's root index",
    description: [
      "Access (one decision for REST and MCP): the index layer is always free, and fully open verticals show all layers to everyone. A node whose layers the caller cannot read answers 200 with the free view: the index layer only (all four layers in `locked_layers`), prose hints in `cta` and a machine-readable `unlock` (a trial where one unlocks the node, a membership of that vertical with the checkout path, the per-use token header and price). Without credentials and with a valid key that does not unlock the node alike: a trial key unlocks the trial modules of its vertical (every node or the first N by order, per the catalogue), a membership key its vertical plus the verticals included with every membership, an `all` key everything. The paragraph that names the verticals of this build is derived from the catalogue. Only a vertical whose index is not free has no free view: 402 without credentials, 403 `vertical_forbidden` for a key that does not unlock it.",
      "A malformed, unknown, revoked or expired key is never downgraded to anonymous in silence: wherever a caller without a key gets a free view (an index, a fully open vertical, a vertical without content, and the locked view of a node of an index-free vertical), that free view is served with a warning: the `Credential-Problem` header carries the problem code (`key_invalid`, `key_revoked`, `key_expired`) and the body a `credential_problem` member (code, title, detail); such an answer has no ETag and is not cached. A bad key must not lock its holder out of what is free. Content with no free view keeps the key's 401: a node of a paid vertical whose index is not free (and rules to evaluate, POST /api/evaluate). `ethics` answers as `ai-compliance`.",
      "Metering: only gated layers count. Each 200 of a node whose layers a key unlocked counts against that key (hourly 200, daily 1000 — 3000 on the 5-key volume plan — answer 429 with Retry-After; beyond the monthly 10,000 membership calls continue as overage at $0.002; trial keys stop at 500 calls, 429 `trial_exhausted`, or 24 h, 401 `key_expired`). Free content (indexes, fully open verticals, free views) is never metered nor refused for quota, with or without a key; it is limited per client address only (ANON_RATE_PER_MINUTE, 429 `rate_limited`). A 304 is not metered, and neither is a HEAD (on every route: access is checked as for GET, headers and Content-Length are sent, nothing is consumed or charged, no RateLimit fields).",
      "A vertical without content answers 200 with its status and how to join the waitlist or register interest; it is not metered.",
      "Per-use payment: instead of a key, a KYAPay pay or kya-pay token in `pay-network-pay-id` unlocks all four layers of any node; each 200 for a content node of a paid or index-free vertical is charged $0.002 (catalogue `per_use_price_usd_micros`) through the agent payment network, after the token's ledger reserves it atomically, so concurrent requests on one token never spend more than its value (`val`/`value`) or its `mnr` request count. Index requests, fully open verticals, 304s and HEAD requests are free. The response tells what was charged and what is left in `Pay-Network-Charged` / `Pay-Network-Remaining` (USD decimal strings). Invalid token 402 `payment_token_invalid`, expired 402 `payment_token_expired`, kya-only 402 `payment_token_required`, used up 402 `payment_token_depleted`, charge refused 402 `payment_failed`; each says how to get a token or a key. The signature is verified once per token and cached until it expires; the expiry is checked on every request. A key wins when both are sent.",
      ...perUseParagraphs(),
      "Responses carry a strong ETag (the artifact digest) and honour If-None-Match with 304.",
      "`layers=logic,action` (node requests only; unknown names 400) keeps only the named layers in `node.layers` and lists them in `node.selected_layers`; layers left out by choice are not added to `locked_layers`, which still names only what the caller cannot read, and `layer_tokens` still covers all four so an agent can budget. Access and metering are those of the whole node. A selection has its own ETag; the runtime derives it once from the prebuilt bytes and serves it from a bounded in-memory LRU.",
    ].join("\n\n"),
    security: ["none", "serviceKey", "serviceKeyQuery", "payToken"],
    params: [
      {
        name: "vertical",
        in: "query",
        required: true,
        schema: Type.String(),
        description: "A vertical slug (ai-compliance and ethics are the same vertical)",
      },
      { name: "node", in: "query", schema: Type.String(), description: "Node id; omit for the root index" },
      {
        name: "lean",
        in: "query",
        schema: Type.Boolean({ default: false }),
        description: "Only `node` and `next_nodes` (index: no wrapper)",
      },
      {
        name: "layers",
        in: "query",
        schema: Type.String({ pattern: "^(logic|directive|skill|action)(,(logic|directive|skill|action))*$" }),
        description: "Comma-separated layers to return (logic, directive, skill, action); others are omitted",
      },
      { name: "If-None-Match", in: "header", schema: Type.String() },
      ...perUseParams(),
    ],
    responses: {
      200: {
        description: "A node (full or lean), an index graph (full or lean), or a placeholder for a vertical without content",
        schema: Type.Union([NodeResponseSchema, LeanNodeResponseSchema, IndexGraphSchema, LeanIndexGraphSchema, VerticalPlaceholderSchema]),
        headers: [
          "ETag",
          ...RATE_HEADERS,
          "Pay-Network-Charged",
          "Pay-Network-Remaining",
          ...perUseResponseHeaders(200),
          "Credential-Problem",
          ...SIGNATURE_HEADERS,
        ],
      },
      304: { description: "Not modified" },
      400: { description: "Missing or unknown vertical, bad parameter" },
      401: {
        description:
          "Malformed, unknown, revoked or expired key, on content with no free view (a node of a paid vertical whose index is not free); wherever there is a free view it is served with `Credential-Problem` instead",
      },
      402: {
        description:
          "A paid vertical without a free index and without credentials, or a per-use token that is invalid, expired, kya-only or used up; with `pay=x402`, `read_payment_required`: the x402 requirements for this read (v2 in PAYMENT-REQUIRED, v1 `accepts` in the body), or a payment refused",
        headers: perUseResponseHeaders(402),
      },
      403: { description: "The key does not unlock this vertical, and the vertical has no free view" },
      404: { description: "Unknown node" },
      429: { description: "A quota window is full", headers: ["Retry-After", ...RATE_HEADERS] },
      503: {
        description:
          "`store_unavailable`: the shared state store (Redis) is unreachable, so a keyed request cannot be metered and is refused, never served unmetered; requests without a key keep working",
        headers: ["Retry-After"],
      },
    },
  },
  {
    method: "post",
    path: "/api/evaluate",
    operationId: "evaluateRules",
    metrics: "retrieval",
    mcp: ["evaluate_rules"],
    summary: "Evaluate a node's compiled rules over boolean facts",
    description: [
      "Deterministic evaluation of one node's rules: every outcome that holds, the full gate trace of every rule (which gates were true, false or undetermined, and why), the citations, `confidence_required: 1`. An outcome holds (or does not) when it does for every value the facts you left out could take; otherwise it is `undetermined`. Never a guess, a probability or partial credit.",
      "Only relevant questions: `missing_facts` lists a fact only if some answer to it can still change an undetermined outcome (a fact inside a branch already decided is never listed), each with its question, `decides` (the undetermined outcomes it can change) and `settles` (how many of them one answer settles). They are ordered most decisive first, and `ask_first` names the first (null when nothing is open). Questions follow the case: an outcome the node lists in its logic layer's `intermediate` (a step that only feeds other outcomes, such as a significant-change test once the flight is known to be cancelled) is reported but never asked about for its own sake, and never appears in `decides`. Answering the listed questions, in any order, determines every undetermined outcome that is not intermediate and never brings up a new question.",
      "Typed values: an outcome that holds carries `values` when the node declares them, so figures need no parsing: `{ type: amount, amount, currency }`, `{ type: cap, amount, unit }` (a currency, `SDR`, or per-unit like `EUR/night`), `{ type: percent, percent, of }`, `{ type: duration, amount, unit }` (minutes, hours, days, business_days, weeks, months, years), `{ type: date, date }`, `{ type: url, url }`, `{ type: path, path }`, each with an optional `note`. An outcome that does not hold, or is undetermined, has no `values`.",
      "Facts must be booleans (anything else is 400 `validation_failed`) and must be facts the node declares (400 `validation_failed` with `declared_facts`). Leave a fact out when it is not known.",
      "Date facts: a node whose logic layer declares `date_facts` (each fact true exactly when the assessed date is on or after its `on_or_after`, e.g. aic-timeline's `event_on_or_after_2026_08_02`) takes one date instead: `as_of` (ISO 8601, `YYYY-MM-DD`, or a date-time whose calendar date as written counts). Every date fact is derived from it, deterministically, and echoed with the date in `derived_facts` and `as_of`. Without `as_of`, a date fact given settles the ones it implies (a date not on or after 2 Aug 2026 is not on or after any later date), also echoed in `derived_facts`; while the date is unknown, the open date facts are asked as one entry of `missing_facts` with id `as_of`. A fact that contradicts `as_of` or another date fact given is 400 `validation_failed` pointing at it; an impossible date (`2026-02-30`) 400 at `/as_of`. `as_of` on a node without date facts changes nothing (`derived_facts: {}`).",
      "Access: the node's logic layer must be unlocked, under the same decision as GET /api/demo with `node`. Without credentials an index-free vertical is 402 `payment_required` (its logic layer is locked), a paid vertical 402; a key that does not unlock the vertical or module 403 `vertical_forbidden` / `module_not_in_trial`; each with `unlock`. A bad key 401. Fully open verticals need nothing.",
      "Metering: each 200 over a gated node's rules answered for a key that unlocks it counts as one retrieval, exactly like a node request; rules of fully open verticals are free; refused requests (4xx) are not counted.",
      "Per-use payment: a KYAPay pay or kya-pay token in `pay-network-pay-id` unlocks the logic layer of any node; each 200 over a gated node is charged $0.002 like a content node request on GET /api/demo (verified before the facts are checked, reserved atomically in the token's ledger, reported in `Pay-Network-Charged` / `Pay-Network-Remaining`); invalid, expired, kya-only or used-up tokens are 402 as there; 402 `per_use_not_accepted` (with a hint naming the key routes) where no agent payment network is configured.",
      "A node without compiled rules answers 200 with empty `outcomes`, `rules` and `missing_facts` (and declares no facts, so only `facts: {}` is accepted): agents may call every node uniformly.",
      ...perUseParagraphs(),
    ].join("\n\n"),
    security: ["none", "serviceKey", "payToken"],
    params: perUseParams(),
    body: EvaluateRequestSchema,
    responses: {
      200: {
        description: "The evaluation",
        schema: EvaluateResponseSchema,
        headers: [...RATE_HEADERS, "Pay-Network-Charged", "Pay-Network-Remaining", ...perUseResponseHeaders(200), ...SIGNATURE_HEADERS],
      },
      400: { description: "Invalid body, non-boolean or unknown fact, unknown vertical" },
      401: { description: "Malformed, unknown, revoked or expired key" },
      402: {
        description:
          "The logic layer is locked for a caller without credentials, or a per-use token that is invalid, expired, kya-only or used up; with `pay=x402`, `read_payment_required`: the x402 requirements for this evaluation, or a payment refused",
        headers: perUseResponseHeaders(402),
      },
      403: { description: "The key does not unlock this vertical or module" },
      404: { description: "Unknown node" },
      429: { description: "A quota window is full", headers: ["Retry-After", ...RATE_HEADERS] },
      502: {
        description: "`payment_gateway_error`: the agent payment network did not answer a per-use charge properly; nothing was served",
      },
      503: { description: "`store_unavailable`", headers: ["Retry-After"] },
    },
  },
  {
    method: "get",
    path: "/v1/delta",
    operationId: "getDelta",
    metrics: "retrieval",
    mcp: ["get_changes"],
    summary: "The change feed: nodes added, updated and deprecated",
    description: [
      "Membership key required in X-Service-Key (or `Authorization: Bearer svc_…`): no key 401 `key_missing`, a trial key 401 `membership_required`, a bad key 401 `key_*`. `?key=` is not accepted here.",
      "`vertical` scopes the feed (unknown 400, a vertical the key cannot read 403 `vertical_forbidden`); omitted, the feed covers every vertical the key can read. `since` (RFC 3339 date-time with a zone, or a date meaning midnight UTC; invalid 400) keeps entries strictly after it. `limit` 1–1000, default 100.",
      "Entries come in (`at`, `id`) order. `next_cursor` is opaque: a signed position (the last entry's `at` and `id`, HMAC with CURSOR_SECRET, else with a random secret generated once and kept in the state store), not an index, so it stays valid across restarts, instances sharing the secret or the store, and new builds: entries already returned never reappear, and entries added later appear after it. Paging with any limit yields every entry exactly once. A cursor that was altered or not issued here is 400 `invalid_cursor`. `cursor` and `since` may be combined; the later bound wins.",
      '`next_cursor` points after the last entry of the page even on the last page (`has_more: false`), so a client can keep it and poll for later changes; an empty page returns the cursor it was given (null without one). While `has_more` is true a `Link: <…>; rel="next"` header carries the next page\'s URL.',
      "Metering: each page answered counts as one retrieval for the key (refused requests are not counted).",
    ].join("\n\n"),
    security: ["serviceKey"],
    params: [
      KEY_HEADER,
      { name: "vertical", in: "query", schema: Type.String(), description: "A vertical slug; omit for every vertical the key can read" },
      {
        name: "since",
        in: "query",
        schema: Type.String(),
        description: "Only entries strictly after this instant (ISO 8601 date-time with zone, or a date)",
      },
      { name: "limit", in: "query", schema: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }) },
      { name: "cursor", in: "query", schema: Type.String(), description: "next_cursor of a previous page" },
    ],
    responses: {
      200: {
        description: "One page of delta entries",
        schema: DeltaResponseSchema,
        headers: ["Link", ...RATE_HEADERS, ...SIGNATURE_HEADERS],
      },
      400: { description: "Invalid since, limit, cursor or unknown vertical" },
      401: { description: "No membership key (missing, trial, malformed, unknown, revoked or expired)" },
      403: { description: "The key does not read this vertical" },
      429: { description: "A quota window is full", headers: ["Retry-After", ...RATE_HEADERS] },
    },
  },
  {
    method: "post",
    path: "/api/trial",
    operationId: "createTrial",
    metrics: "request",
    security: ["none"],
    summary: "Request a trial key",
    description:
      "One active trial per agent_id and vertical (409 while it lasts); at most TRIALS_PER_CLIENT_HOUR trial keys per client address per hour (429). The key is shown only in this response.",
    body: TrialRequestSchema,
    responses: {
      200: { description: "The trial key", schema: TrialResponseSchema },
      400: { description: "Invalid body or vertical" },
      409: { description: "Active trial exists" },
      429: { description: "Too many trials from this client" },
    },
  },
  {
    method: "get",
    path: "/api/keys",
    operationId: "getKey",
    metrics: "request",
    summary: "Key details",
    description:
      "The presented key's own record, usage by window and quota, and `credits`: the referral and loyalty credit owed to its account (`balance`, each grant, and every renewal invoice it was applied to; credit is taken off the next card renewal), and `usage_history`: the key's metered calls per UTC day (`{ date, requests }`, oldest first, days without a call left out) over the last 90 days, today included (today's count is live; earlier days are the day counters the meter kept, folded once a day). Revoked and expired keys are still described (status says so). A re-rolled secret describes its key until its grace period ends, then is 401 `key_rerolled`. Prefer the header: a key in the URL can leak through logs (ours redact it).",
    security: ["serviceKey", "serviceKeyQuery"],
    params: [KEY_HEADER, { name: "key", in: "query", schema: Type.String() }],
    responses: {
      200: { description: "Key details", schema: OwnKeyDetailsSchema },
      401: { description: "No key given" },
      404: { description: "Key not found" },
    },
  },
  {
    method: "post",
    path: "/api/keys",
    operationId: "issueKeys",
    metrics: "request",
    summary: "Issue membership keys (admin)",
    description:
      "Admin bearer required: missing → 401, wrong → 403 (also when the server has no ADMIN_KEY). The admin is trusted, so no proof of the account is asked. Issuance runs through the same durable purchase record as a checkout (without a payment): slots, keys and the cohort seat are all-or-nothing across a crash. An account (agent_id or contact) holds at most 5 keys (409 `conflict` beyond); keys for a new account take a seat of the active cohort (409 `cohort_full` while it is full and the next tier closed), keys for a member's account are of its own cohort; an account holding 5 keys is on the volume plan (daily 3000 per key, 50,000 pooled per month). `permanent` keys have no monthly reset: their allowance counts over the key's lifetime.",
    security: ["adminBearer"],
    body: IssueKeysRequestSchema,
    responses: {
      201: { description: "The new keys, each shown only here", schema: KeysIssuedSchema },
      400: { description: "Invalid body" },
      401: { description: "Admin authorization missing" },
      403: { description: "Admin key invalid" },
      409: { description: "Account key cap reached (`conflict`), or a new account while the active cohort is full (`cohort_full`)" },
    },
  },
  {
    method: "get",
    path: "/api/verify",
    operationId: "verifyKey",
    metrics: "request",
    mcp: ["verify_key"],
    summary: "Validate a key",
    description:
      "200 for any presented key: `valid: false` with a `reason` (unknown, malformed, revoked, expired, rerolled: a re-rolled secret past its grace period) when it cannot be used. 401 only when no key is sent.",
    security: ["serviceKey"],
    params: [KEY_HEADER],
    responses: { 200: { description: "Verification result", schema: VerifyResponseSchema }, 401: { description: "No key given" } },
  },
  {
    method: "get",
    path: "/healthz",
    operationId: "health",
    metrics: "request",
    security: ["none"],
    summary: "Liveness",
    responses: { 200: { description: "The process answers", schema: Type.Object({ status: Type.Literal("ok") }) } },
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "ready",
    metrics: "request",
    security: ["none"],
    summary: "Readiness: a verified build is loaded and the state store answers",
    responses: {
      200: { description: "Ready", schema: Type.Object({ status: Type.Literal("ready"), build_id: Type.String(), store: Type.String() }) },
      503: { description: "Store unavailable" },
    },
  },
];

/** Every published operation; each area's list is spread in here. */
export const OPERATIONS: Operation[] = [
  ...CORE_OPERATIONS,
  ...PEOPLE_OPERATIONS,
  ...GROWTH_OPERATIONS,
  ...MCP_OPERATIONS,
  ...PAYMENT_OPERATIONS,
  ...SIGNING_OPERATIONS,
];
