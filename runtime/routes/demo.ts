/**
 * GET /api/demo: the root index or a node of a vertical. Resolves the caller, decides the view
 * with `resolveAccess`, answers 304 for a matching ETag (not metered), meters keyed requests, and
 * sends the prebuilt bytes of the chosen variant.
 */
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { apiError } from "../errors.ts";
import { readCredentials, resolveCaller, type Caller } from "../access/credentials.ts";
import { resolveAccess } from "../access/resolve-access.ts";
import { meterKey } from "../metering/meter.ts";
import { CREDENTIAL_VARY, matchesEtag } from "../http/headers.ts";
import { sendBytes, sendJson } from "../http/respond.ts";
import { requestContext } from "../http/context.ts";
import type { Artifact, NodeVariant } from "../storage/artifacts.ts";
import { describePlaceholder } from "./vertical-placeholder.ts";

export default definePlugin<AppDeps>((app, deps) => {
  app.get("/api/demo", async (event) => {
    const ctx = requestContext(event);
    const params = ctx.url.searchParams;
    const build = deps.build.current;
    const slug = _single(params, "vertical");
    if (slug === null || slug === "") throw apiError("vertical_missing");
    const vertical = build.resolveVertical(slug);
    if (!vertical) throw apiError("vertical_unknown", { detail: `"${slug.slice(0, 64)}" is not a vertical.` });
    const lean = _bool(params, "lean");
    const nodeId = _single(params, "node");

    const now = deps.clock.now();
    const caller = await resolveCaller(readCredentials(event.req.headers, ctx.url, { allowQueryKey: true }), deps.keys, now);
    if (caller.kind === "key") ctx.keyId = caller.record.id;
    if (vertical.status !== "live") return sendJson(event, 200, await describePlaceholder(deps, vertical));

    const meta = nodeId === null ? null : build.nodeMeta(vertical.slug, nodeId);
    if (nodeId !== null && !meta) throw apiError("node_not_found", { detail: `No node "${nodeId.slice(0, 100)}" in ${vertical.slug}.` });
    const view = resolveAccess({ caller, vertical, node: meta });
    if (caller.kind === "payment" && meta && !vertical.fully_open) {
      throw apiError("payment_provider_unavailable", { detail: "Per-use payment tokens are not accepted on this deployment yet; use a key." });
    }

    const artifact: Artifact = meta
      ? await build.node(vertical.slug, meta.id, (view === "full" ? (lean ? "lean" : "full") : lean ? "locked.lean" : "locked") as NodeVariant)
      : await build.index(vertical.slug, lean);
    const headers: Record<string, string> = { etag: artifact.etag, ..._cacheHeaders(caller, vertical.fully_open) };
    if (matchesEtag(event.req.headers.get("if-none-match"), artifact.etag)) return sendBytes(event, 304, null, headers);
    if (caller.kind === "key") Object.assign(headers, (await meterKey(deps.backend, limitsInForce(deps), caller.record, now)).headers);
    return sendBytes(event, 200, artifact.bytes, headers);
  });
});

// --- Internal helpers ---

function _cacheHeaders(caller: Caller, open: boolean): Record<string, string> {
  if (caller.kind === "anonymous" && open) return { "cache-control": "public, max-age=60", vary: CREDENTIAL_VARY };
  return { "cache-control": "private, no-cache", vary: CREDENTIAL_VARY };
}

/** A repeated query parameter is ambiguous, so it is an error rather than a silent pick. */
function _single(params: URLSearchParams, name: string): string | null {
  const all = params.getAll(name);
  if (all.length > 1) throw apiError("bad_request", { detail: `Give "${name}" once.`, errors: [{ pointer: `/query/${name}`, message: "repeated" }] });
  return all[0] ?? null;
}

function _bool(params: URLSearchParams, name: string): boolean {
  const value = _single(params, name);
  if (value === null || value === "" || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw apiError("validation_failed", { detail: `"${name}" must be true or false.`, errors: [{ pointer: `/query/${name}`, message: "must be true or false" }] });
}
