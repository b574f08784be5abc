/**
 * GET /api/search: parses the query and the caller, applies the anonymous per-client limit of
 * GET /api/demo, then hands over to `searchNodes`.
 */

import { requestCaller } from "../../domain/access/request-caller.ts";
import { searchNodes } from "../../domain/search/search-nodes.ts";
import { searchIdentity } from "../../domain/signing/answer-identity.ts";
import { sendSignedJson } from "../../domain/signing/send-signed.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { requestContext } from "../../shared/http/context.ts";
import { isHeadRequest } from "../../shared/http/head.ts";
import { CREDENTIAL_VARY } from "../../shared/http/headers.ts";
import { readIntegerParam, readSingleParam } from "../../shared/http/query.ts";
import { defineRoutes } from "./route-table.ts";

export default defineRoutes((route, deps) => {
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
