/**
 * GET /api/demo: the root index or a node of a vertical. Resolves the caller, decides the view
 * with `resolveAccess`, answers 304 for a matching ETag (not metered), meters keyed requests, and
 * sends the prebuilt bytes of the chosen variant. `layers=` narrows a node to the named layers
 * (derived once per artifact and selection, then served from a small LRU).
 */
import { clientAddress } from "../http/client-address.ts";
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { apiError } from "../errors.ts";
import { readCredentials, resolveCaller, type Caller } from "../access/credentials.ts";
import { resolveAccess, resolveContentAccess } from "../access/resolve-access.ts";
import { authorizePerUse, chargePerUse } from "../payments/per-use.ts";
import { meterKey } from "../metering/meter.ts";
import { CREDENTIAL_VARY, matchesEtag } from "../http/headers.ts";
import { sendBytes, sendJson } from "../http/respond.ts";
import { requestContext } from "../http/context.ts";
import { readBooleanParam, readSingleParam } from "../http/query.ts";
import { createLayerSelector, parseLayerSelection } from "../layers/select-layers.ts";
import type { Artifact, NodeVariant } from "../storage/artifacts.ts";
import { describePlaceholder } from "./vertical-placeholder.ts";
import { createAnonymousLimiter } from "../metering/anonymous-limit.ts";

/** Selections kept: 15 per node variant at most, so this covers the hot set of a large vertical. */
const LAYER_CACHE_ENTRIES = 512;

export default definePlugin<AppDeps>((app, deps) => {
  const selector = createLayerSelector({ maxEntries: LAYER_CACHE_ENTRIES });
  const anonymous = createAnonymousLimiter(deps.config.anonymousPerMinute);
  app.get("/api/demo", async (event) => {
    const ctx = requestContext(event);
    const params = ctx.url.searchParams;
    const build = deps.build.current;
    const slug = readSingleParam(params, "vertical");
    if (slug === null || slug === "") throw apiError("vertical_missing");
    const vertical = build.resolveVertical(slug);
    if (!vertical) throw apiError("vertical_unknown", { detail: `"${slug.slice(0, 64)}" is not a vertical.` });
    const lean = readBooleanParam(params, "lean");
    const nodeId = readSingleParam(params, "node");
    const layersParam = readSingleParam(params, "layers");
    const layers = layersParam === null ? null : parseLayerSelection(layersParam);
    if (layers && nodeId === null) {
      throw apiError("validation_failed", { detail: `"layers" applies to a node; an index carries no layers.`, errors: [{ pointer: "/query/layers", message: "needs node" }] });
    }

    const now = deps.clock.now();
    const caller = await resolveCaller(readCredentials(event.req.headers, ctx.url, { allowQueryKey: true }), deps.keys, now);
    if (caller.kind === "key") ctx.keyId = caller.record.id;
    if (caller.kind === "anonymous") anonymous.assert(clientAddress(event, deps.config.trustProxy), now);
    if (vertical.status !== "live") return sendJson(event, 200, await describePlaceholder(deps, vertical));

    const meta = nodeId === null ? null : build.nodeMeta(vertical.slug, nodeId);
    if (nodeId !== null && !meta) throw apiError("node_not_found", { detail: `No node "${nodeId.slice(0, 100)}" in ${vertical.slug}.` });
    // A pay token on a content node of a paid vertical: verified here, charged only once content is sent.
    const perUse = caller.kind === "payment" && meta !== null && !vertical.fully_open ? await authorizePerUse(deps, caller.token, now) : null;
    const view = perUse ? resolveAccess({ caller, vertical, node: meta }) : resolveContentAccess({ caller, vertical, node: meta });

    let artifact: Artifact = meta
      ? await build.node(vertical.slug, meta.id, (view === "full" ? (lean ? "lean" : "full") : lean ? "locked.lean" : "locked") as NodeVariant)
      : await build.index(vertical.slug, lean);
    if (layers) artifact = selector.select(artifact, layers);
    const headers: Record<string, string> = { etag: artifact.etag, ..._cacheHeaders(caller, vertical.fully_open) };
    if (matchesEtag(event.req.headers.get("if-none-match"), artifact.etag)) return sendBytes(event, 304, null, headers);
    if (caller.kind === "key") Object.assign(headers, (await meterKey(deps.backend, limitsInForce(deps), caller.record, now)).headers);
    if (perUse) Object.assign(headers, await chargePerUse(deps, perUse, now));
    return sendBytes(event, 200, artifact.bytes, headers);
  });
});

// --- Internal helpers ---

function _cacheHeaders(caller: Caller, open: boolean): Record<string, string> {
  if (caller.kind === "anonymous" && open) return { "cache-control": "public, max-age=60", vary: CREDENTIAL_VARY };
  return { "cache-control": "private, no-cache", vary: CREDENTIAL_VARY };
}
