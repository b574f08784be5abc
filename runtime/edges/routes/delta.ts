/**
 * GET /v1/delta: the change feed. Parses the query and the key, calls `readDelta`, and adds a
 * `Link: <…>; rel="next"` header while more entries remain.
 */

import { type Static, Type } from "@sinclair/typebox";
import { requestCaller } from "../../domain/access/request-caller.ts";
import { readDelta, requireMembershipKey } from "../../domain/delta/read-delta.ts";
import { deltaIdentity } from "../../domain/signing/answer-identity.ts";
import { sendSignedJson } from "../../domain/signing/send-signed.ts";
import { requestContext } from "../../shared/http/context.ts";
import { isHeadRequest } from "../../shared/http/head.ts";
import { CREDENTIAL_VARY } from "../../shared/http/headers.ts";
import { readIntegerParam, readSingleParam } from "../../shared/http/query.ts";
import { DeltaRequestSchema } from "../../shared/schema/requests.ts";
import { DeltaResponseSchema } from "../../shared/schema/responses.ts";
import type { EdgeDeps } from "../edge-deps.ts";
import { defineTool } from "../mcp/tool-definition.ts";
import { KEY_HEADER, RATE_HEADERS, SIGNATURE_HEADERS } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const GET_CHANGES_TOOL = defineTool({
  name: "get_changes",
  title: "Get changes (delta feed)",
  description:
    "The change feed of GET /v1/delta: nodes added, updated or deprecated, oldest first, with a cursor for the next page. Needs a membership key; one retrieval per page.",
  input: DeltaRequestSchema,
  output: DeltaResponseSchema,
  run: async (ctx, args: Static<typeof DeltaRequestSchema>) => {
    const record = requireMembershipKey(await ctx.caller());
    const query = { vertical: args.vertical ?? null, since: args.since ?? null, cursor: args.cursor ?? null, limit: args.limit ?? null };
    const build = ctx.deps.build.current;
    const { body, headers } = await readDelta(ctx.deps, record, query, ctx.now);
    Object.assign(ctx.headers, headers);
    return { structured: body as unknown as Record<string, unknown>, identity: deltaIdentity(build, query) };
  },
  rank: 6,
});

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/v1/delta",
    operationId: "getDelta",
    metrics: "retrieval",
    mcp: [GET_CHANGES_TOOL],
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
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("getDelta", async (event) => {
    const ctx = requestContext(event);
    const params = ctx.url.searchParams;
    const now = deps.clock.now();
    const caller = await requestCaller(event, deps).caller();
    const record = requireMembershipKey(caller);

    const query = {
      vertical: readSingleParam(params, "vertical"),
      since: readSingleParam(params, "since"),
      cursor: readSingleParam(params, "cursor"),
      limit: readIntegerParam(params, "limit"),
    };
    // The build readDelta reads (first thing, before any await), so the identity names it.
    const build = deps.build.current;
    const { body, headers } = await readDelta(deps, record, query, now, { count: !isHeadRequest(event) });
    // After the call: the vertical, if any, is known to resolve in that build.
    const identity = deltaIdentity(build, query);
    const out: Record<string, string> = { ...headers, "cache-control": "private, no-store", vary: CREDENTIAL_VARY };
    if (body.has_more && body.next_cursor) out.link = `<${_nextUrl(deps, params, body.next_cursor)}>; rel="next"`;
    return sendSignedJson(event, deps, body, identity, now, out);
  });
});

// --- Internal helpers ---

/** Same query with the new cursor; relative unless PUBLIC_BASE_URL is set (never the Host header). */
function _nextUrl(deps: EdgeDeps, params: URLSearchParams, cursor: string): string {
  const next = new URLSearchParams();
  for (const name of ["vertical", "since", "limit"]) {
    const value = params.get(name);
    if (value !== null) next.set(name, value);
  }
  next.set("cursor", cursor);
  return `${deps.config.publicBaseUrl ?? ""}/v1/delta?${next.toString()}`;
}
