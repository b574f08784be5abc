/**
 * GET /api/search: parses the query and the caller, applies the anonymous per-client limit of
 * GET /api/demo, then hands over to `searchNodes`.
 */
import { clientAddress } from "../http/client-address.ts";
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { readCredentials, resolveReader } from "../access/credentials.ts";
import { requestContext } from "../http/context.ts";
import { isHeadRequest } from "../http/head.ts";
import { CREDENTIAL_VARY } from "../http/headers.ts";
import { readIntegerParam, readSingleParam } from "../http/query.ts";
import { sendJson } from "../http/respond.ts";
import { apiError } from "../errors.ts";
import { createAnonymousLimiter } from "../metering/anonymous-limit.ts";
import { searchNodes } from "../search/search-nodes.ts";

export default definePlugin<AppDeps>((app, deps) => {
  const anonymous = createAnonymousLimiter(deps.config.anonymousPerMinute, { backend: deps.backend, name: "search" });
  app.get("/api/search", async (event) => {
    const ctx = requestContext(event);
    const params = ctx.url.searchParams;
    const now = deps.clock.now();
    // A refused key searches as a caller without one (warned in the answer), so the anonymous limit applies to it too.
    const reader = await resolveReader(readCredentials(event.req.headers, ctx.url, { allowQueryKey: false }), deps.keys, now);
    if (reader.caller.kind === "key") ctx.keyId = reader.caller.record.id;
    if (reader.caller.kind === "anonymous") await anonymous.assert(clientAddress(event, deps.config.trustProxy), now);
    const query = { q: readSingleParam(params, "q"), vertical: readSingleParam(params, "vertical"), limit: readIntegerParam(params, "limit") };
    const { body, headers } = await searchNodes(deps, reader, query, now, { count: !isHeadRequest(event) });
    return sendJson(event, 200, body, { ...headers, "cache-control": "private, no-store", vary: CREDENTIAL_VARY });
  });
});
