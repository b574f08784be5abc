/**
 * GET /api/search: parses the query and the caller, applies the anonymous per-client limit of
 * GET /api/demo, then hands over to `searchNodes`.
 */
import { clientAddress } from "../http/client-address.ts";
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { readCredentials, resolveCaller } from "../access/credentials.ts";
import { requestContext } from "../http/context.ts";
import { isHeadRequest } from "../http/head.ts";
import { CREDENTIAL_VARY } from "../http/headers.ts";
import { readIntegerParam, readSingleParam } from "../http/query.ts";
import { sendJson } from "../http/respond.ts";
import { apiError } from "../errors.ts";
import { createAnonymousLimiter } from "../metering/anonymous-limit.ts";
import { searchNodes } from "../search/search-nodes.ts";

export default definePlugin<AppDeps>((app, deps) => {
  const anonymous = createAnonymousLimiter(deps.config.anonymousPerMinute);
  app.get("/api/search", async (event) => {
    const ctx = requestContext(event);
    const params = ctx.url.searchParams;
    const now = deps.clock.now();
    const caller = await resolveCaller(readCredentials(event.req.headers, ctx.url, { allowQueryKey: false }), deps.keys, now);
    if (caller.kind === "key") ctx.keyId = caller.record.id;
    if (caller.kind === "anonymous") anonymous.assert(clientAddress(event, deps.config.trustProxy), now);
    const query = { q: readSingleParam(params, "q"), vertical: readSingleParam(params, "vertical"), limit: readIntegerParam(params, "limit") };
    const { body, headers } = await searchNodes(deps, caller, query, now, { count: !isHeadRequest(event) });
    return sendJson(event, 200, body, { ...headers, "cache-control": "private, no-store", vary: CREDENTIAL_VARY });
  });
});
