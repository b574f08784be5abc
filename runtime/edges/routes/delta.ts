/**
 * GET /v1/delta: the change feed. Parses the query and the key, calls `readDelta`, and adds a
 * `Link: <…>; rel="next"` header while more entries remain.
 */
import { requestCaller } from "../../domain/access/request-caller.ts";
import { readDelta, requireMembershipKey } from "../../domain/delta/read-delta.ts";
import { deltaIdentity } from "../../domain/signing/answer-identity.ts";
import { sendSignedJson } from "../../domain/signing/send-signed.ts";
import { requestContext } from "../../shared/http/context.ts";
import { isHeadRequest } from "../../shared/http/head.ts";
import { CREDENTIAL_VARY } from "../../shared/http/headers.ts";
import { readIntegerParam, readSingleParam } from "../../shared/http/query.ts";
import type { EdgeDeps } from "../edge-deps.ts";
import { defineRoutes } from "./route-table.ts";

export default defineRoutes((route, deps) => {
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
