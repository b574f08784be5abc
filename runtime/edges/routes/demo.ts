/**
 * GET /api/demo: the root index or a node of a vertical. Plans the read with `planRead` (the read
 * session every content path shares: the view, who pays, the free-read limit, the pay token), answers 304
 * for a matching ETag (not metered), meters what the decision says (`meterRead`), and sends the
 * prebuilt bytes of the chosen variant. `layers=` narrows a node to the named layers (derived once
 * per artifact and selection, then served from a small LRU).
 */

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
import type { Artifact } from "../../state/releases/artifacts.ts";
import { defineRoutes } from "./route-table.ts";

export default defineRoutes((route, deps) => {
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
    const reader = await requestCaller(event, deps).reader({ allowQueryKey: true });
    const freeRead = () => anonymous.assert(clientAddress(event, deps.config), now);
    const plan = await planRead(deps, { build, vertical, meta: findNode(build, vertical, nodeId), reader, freeRead }, now);
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

    let artifact = await planArtifact(plan, lean);
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
      return sendPrepared(event, 200, null, headers, { ...signature, "content-length": String(artifact.bytes.byteLength) });
    return sendPrepared(event, 200, artifact.bytes, headers, { ...(await meterRead(deps, plan, now)), ...signature });
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
