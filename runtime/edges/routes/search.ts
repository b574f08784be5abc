/**
 * GET /api/search: parses the query and the caller, applies the anonymous per-client limit of
 * GET /api/demo, then hands over to `searchNodes`.
 */

import { type Static, Type } from "@sinclair/typebox";
import { toReader } from "../../domain/access/credentials.ts";
import { requestCaller } from "../../domain/access/request-caller.ts";
import { searchNodes } from "../../domain/search/search-nodes.ts";
import { searchIdentity } from "../../domain/signing/answer-identity.ts";
import { sendSignedJson } from "../../domain/signing/send-signed.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { requestContext } from "../../shared/http/context.ts";
import { isHeadRequest } from "../../shared/http/head.ts";
import { CREDENTIAL_VARY } from "../../shared/http/headers.ts";
import { readIntegerParam, readSingleParam } from "../../shared/http/query.ts";
import { SearchRequestSchema } from "../../shared/schema/requests.ts";
import { SearchResponseSchema } from "../../shared/schema/search.ts";
import { defineTool } from "../mcp/tool-definition.ts";
import { SIGNATURE_HEADERS } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const SEARCH_TOOL = defineTool({
  name: "search",
  title: "Search nodes",
  description:
    "Ranked search over the nodes you may read, from the build's prebuilt index; ask in plain words or keywords. Every caller is ranked the same way; snippets quote only layers you unlocked. Each result has a 0–1 `score`, and `match` says whether to answer from them: good, poor (nothing answers the question well: say so rather than answer from the results) or none. Free unless its snippets may quote gated layers a key unlocked, then one retrieval.",
  input: SearchRequestSchema,
  output: SearchResponseSchema,
  run: async (ctx, args: Static<typeof SearchRequestSchema>) => {
    const reader = await toReader(ctx.caller());
    if (reader.caller.kind === "anonymous") await ctx.anonymous.assert(ctx.client(), ctx.now);
    const query = { q: args.q, vertical: args.vertical ?? null, limit: args.limit ?? null };
    const build = ctx.deps.build.current;
    const outcome = await searchNodes(ctx.deps, reader, query, ctx.now);
    Object.assign(ctx.headers, outcome.headers);
    return { structured: outcome.body, identity: searchIdentity(build, query) };
  },
  rank: 4,
});

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/search",
    operationId: "search",
    metrics: "request",
    mcp: [SEARCH_TOOL],
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
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  const anonymous = deps.shared.freeReads.search;
  route("search", async (event) => {
    const ctx = requestContext(event);
    const params = ctx.url.searchParams;
    const now = deps.clock.now();
    // A refused key searches as a caller without one (warned in the answer), so the anonymous limit applies to it too.
    const reader = await requestCaller(event, deps).reader();
    if (reader.caller.kind === "anonymous") await anonymous.assert(clientAddress(event, deps.config), now);
    const query = {
      q: readSingleParam(params, "q"),
      vertical: readSingleParam(params, "vertical"),
      limit: readIntegerParam(params, "limit"),
    };
    // The build searchNodes reads (first thing, before any await), so the identity names it.
    const build = deps.build.current;
    const { body, headers } = await searchNodes(deps, reader, query, now, { count: !isHeadRequest(event) });
    // After the call: the vertical, if any, is known to resolve in that build.
    const identity = searchIdentity(build, query);
    return sendSignedJson(event, deps, body, identity, now, { ...headers, "cache-control": "private, no-store", vary: CREDENTIAL_VARY });
  });
});
