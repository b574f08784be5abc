/**
 * GET /api/demo: the root index or a node of a vertical. Plans the read with `planRead` (the read
 * session every content path shares: the view, who pays, the free-read limit, the pay token), answers 304
 * for a matching ETag (not metered), meters what the decision says (`meterRead`), and sends the
 * prebuilt bytes of the chosen variant. `layers=` narrows a node to the named layers (derived once
 * per artifact and selection, then served from a small LRU).
 */

import { type Static, Type } from "@sinclair/typebox";
import { credentialProblemHeaders, withCredentialProblem } from "../../domain/access/credential-problem.ts";
import { findNode, planArtifact, planRead } from "../../domain/access/read-session.ts";
import { requestCaller } from "../../domain/access/request-caller.ts";
import { unknownVertical } from "../../domain/access/unknown-names.ts";
import { describePlaceholder } from "../../domain/growth/vertical-placeholder.ts";
import { parseLayerSelection } from "../../domain/layers/select-layers.ts";
import { meterRead } from "../../domain/metering/meter-read.ts";
import { apiError } from "../../shared/errors.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { requestContext } from "../../shared/http/context.ts";
import { isHeadRequest } from "../../shared/http/head.ts";
import { CREDENTIAL_VARY, matchesEtag } from "../../shared/http/headers.ts";
import { readBooleanParam, readSingleParam } from "../../shared/http/query.ts";
import { type PreparedHeaders, prepareHeaders, sendBytes, sendJson, sendPrepared } from "../../shared/http/respond.ts";
import { IndexGraphSchema, LeanIndexGraphSchema, LeanNodeResponseSchema, NodeResponseSchema } from "../../shared/schema/artifacts.ts";
import { GetIndexRequestSchema, GetNodeRequestSchema } from "../../shared/schema/requests.ts";
import { VerticalPlaceholderSchema } from "../../shared/schema/responses.ts";
import type { Artifact } from "../../state/releases/artifacts.ts";
import { readContent } from "../mcp/content.ts";
import { PayArgument, payingCaller } from "../mcp/paid-call.ts";
import { defineTool, objectOf } from "../mcp/tool-definition.ts";
import { RATE_HEADERS, SIGNATURE_HEADERS } from "../openapi/fragments.ts";
import { perUseParagraphs, perUseParams, perUseResponseHeaders } from "../openapi/per-use-openapi.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const GetNodeArguments = Type.Composite([GetNodeRequestSchema, PayArgument], { additionalProperties: false });

const GET_INDEX_TOOL = defineTool({
  name: "get_index",
  title: "Get a vertical's index",
  description:
    "The root index graph of a vertical: every node with title, summary, next_nodes, trial flag and layer_tokens (token estimate per layer, to budget before fetching). Knowledge only by default (the notes REST adds are in the vkr://about resource; lean: false includes them). Same decision as GET /api/demo without a node: the index layer is free for every caller and never metered; a refused key is ignored here and named in `credential_problem`.",
  input: GetIndexRequestSchema,
  output: objectOf([IndexGraphSchema, LeanIndexGraphSchema, VerticalPlaceholderSchema]),
  // Knowledge only unless asked: the wrapper text is the same on every answer (vkr://about has it once).
  run: (ctx, args: Static<typeof GetIndexRequestSchema>) =>
    readContent(ctx, { vertical: args.vertical, node: null, lean: args.lean ?? true }),
  rank: 2,
});

const GET_NODE_TOOL = defineTool({
  name: "get_node",
  title: "Get a node",
  description:
    'One knowledge node with its four layers (logic with compiled rules, directive, skill, action), sources and next_nodes: the node and next_nodes only by default when you can read its layers (the notes REST adds are in the vkr://about resource; lean: false includes them); `layers` returns only the named layers. A caller who cannot read the layers (no key, or a key that does not unlock this node) gets the free view as REST sends it: the index layer, locked_layers naming the rest and `unlock` saying what would open them (lean: true drops the hint). Same decision and metering as GET /api/demo: one retrieval per call only when a key unlocks gated layers; fully open verticals and free views cost nothing. Without a key, `pay: "x402"` pays for this one read ($0.002): the result is the x402 payment requirements (isError, in _meta["x402/payment-required"]); call again with the payment in _meta["x402/payment"].',
  input: GetNodeArguments,
  output: objectOf([NodeResponseSchema, LeanNodeResponseSchema, VerticalPlaceholderSchema]),
  run: async (ctx, args: Static<typeof GetNodeArguments>) =>
    readContent(ctx, {
      vertical: args.vertical,
      node: args.node,
      lean: args.lean ?? "unless-locked",
      layers: args.layers,
      caller: payingCaller(ctx, "get_node", args),
    }),
  rank: 3,
  listing: "get_node (lean, layers)",
});

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/demo",
    operationId: "getDemo",
    metrics: "retrieval",
    mcp: [GET_INDEX_TOOL, GET_NODE_TOOL],
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
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  const selector = deps.shared.layers;
  const anonymous = deps.shared.freeReads.demo;
  const prepared = new WeakMap<Artifact, PreparedHeaders[]>();
  route("getDemo", async (event) => {
    const ctx = requestContext(event);
    const params = ctx.url.searchParams;
    const build = deps.build.current;
    const slug = readSingleParam(params, "vertical");
    if (slug === null || slug === "") throw apiError("vertical_missing");
    const vertical = build.resolveVertical(slug);
    if (!vertical) throw unknownVertical(build, slug);
    const lean = readBooleanParam(params, "lean");
    const nodeId = readSingleParam(params, "node");
    const layersParam = readSingleParam(params, "layers");
    const layers = layersParam === null ? null : parseLayerSelection(layersParam);
    if (layers && nodeId === null) {
      throw apiError("validation_failed", {
        detail: `"layers" applies to a node; an index carries no layers.`,
        errors: [{ pointer: "/query/layers", message: "needs node" }],
      });
    }

    const now = deps.clock.now();
    // Awaited only when pending: a cached key's read and its plan take no turn of their own.
    const asked = requestCaller(event, deps).reader({ allowQueryKey: true });
    const reader = asked instanceof Promise ? await asked : asked;
    const freeRead = () => anonymous.assert(clientAddress(event, deps.config), now);
    const planned = planRead(deps, { build, vertical, meta: findNode(build, vertical, nodeId), reader, freeRead }, now);
    const plan = planned instanceof Promise ? await planned : planned;
    const { caller, decision } = plan;
    const problem = decision.credentialProblem;
    if (vertical.status !== "live") {
      const placeholder = await describePlaceholder(deps, vertical);
      return sendJson(
        event,
        200,
        problem ? { credential_problem: problem, ...placeholder } : placeholder,
        credentialProblemHeaders(problem),
      );
    }

    const chosen = planArtifact(plan, lean);
    let artifact = chosen instanceof Promise ? await chosen : chosen;
    if (layers) artifact = selector.select(artifact, layers);
    // The warned answer is not the artifact, so it carries no ETag and is not cached.
    if (problem) {
      // Rare (a refused key on free content), so signed here rather than precomputed.
      const warned = withCredentialProblem(artifact.bytes, problem);
      const signature = artifact.identity ? deps.shared.signer.sign(warned, artifact.identity, now) : {};
      return sendBytes(event, 200, warned, {
        "cache-control": "no-store",
        vary: CREDENTIAL_VARY,
        ...credentialProblemHeaders(problem),
        ...signature,
      });
    }
    const headers = _headersOf(prepared, artifact, caller.kind === "anonymous" && vertical.fully_open);
    if (matchesEtag(event.req.headers.get("if-none-match"), artifact.etag)) return sendPrepared(event, 304, null, headers, null);
    // Dated when served (signed at most once a second per artifact), never from the prepared headers.
    const signature = artifact.signature ? deps.shared.signer.stamp(artifact.signature, now) : null;
    if (isHeadRequest(event))
      return sendPrepared(event, 200, null, headers, { "content-length": String(artifact.bytes.byteLength) }, signature);
    return sendPrepared(event, 200, artifact.bytes, headers, await meterRead(deps, plan, now), signature);
  });
});

// --- Internal helpers ---

/** An artifact's headers, prepared once per artifact for each of its two cache policies. */
function _headersOf(prepared: WeakMap<Artifact, PreparedHeaders[]>, artifact: Artifact, shared: boolean): PreparedHeaders {
  let both = prepared.get(artifact);
  if (both === undefined) prepared.set(artifact, (both = []));
  return (both[shared ? 1 : 0] ??= prepareHeaders({
    etag: artifact.etag,
    // Free content to an anonymous reader is the same for everyone; anything else depends on the credentials.
    "cache-control": shared ? "public, max-age=60" : "private, no-cache",
    vary: CREDENTIAL_VARY,
  }));
}
