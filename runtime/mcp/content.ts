/**
 * A node or an index for one caller, as `GET /api/demo` answers it: the same decision
 * (`decideRead`: view, metering, a refused key on free content), the same prebuilt variants, the
 * same layer selection and the same metering (`meterRead`). Used by the `get_node` / `get_index` tools and by resources/read.
 */
import { limitsInForce } from "../deps.ts";
import { apiError } from "../errors.ts";
import { toReader } from "../access/credentials.ts";
import { credentialProblemHeaders, withCredentialProblem } from "../access/credential-problem.ts";
import { decideRead } from "../access/decide-read.ts";
import { authorizePerUse } from "../payments/per-use.ts";
import { meterRead } from "../metering/meter-read.ts";
import { parseLayerSelection } from "../layers/select-layers.ts";
import type { LayerName } from "../schema/catalog.ts";
import type { Artifact, NodeVariant } from "../storage/artifacts.ts";
import { describePlaceholder } from "../routes/vertical-placeholder.ts";
import type { McpContext } from "./context.ts";
import { prependJsonMember } from "../http/json-member.ts";
import { toUnlockHint } from "../schema/unlock.ts";

export interface ContentRequest {
  vertical: string;
  /** Null for the vertical's root index. */
  node: string | null;
  /** true/false as on REST; "unless-locked": lean for a readable node, full (with `unlock`) for a locked view. */
  lean?: boolean | "unless-locked";
  layers?: readonly LayerName[];
}

export interface ContentAnswer {
  /** The JSON exactly as REST sends it (the prebuilt bytes when there are any; never re-parsed). */
  bytes: Uint8Array;
  /** The artifact's ETag (its digest, plus the layer selection): a key for caches of derived forms. Null for a placeholder. */
  etag: string | null;
}

export async function readContent(ctx: McpContext, request: ContentRequest): Promise<ContentAnswer> {
  const build = ctx.deps.build.current;
  const vertical = build.resolveVertical(request.vertical);
  if (!vertical) throw apiError("vertical_unknown", { detail: `"${request.vertical.slice(0, 64)}" is not a vertical.` });
  const layers = request.layers?.length ? parseLayerSelection(request.layers.join(",")) : null;
  if (layers && request.node === null) throw apiError("validation_failed", { detail: `"layers" applies to a node; an index carries no layers.` });

  const { caller, credentialProblem } = await toReader(ctx.caller());
  const meta = vertical.status !== "live" || request.node === null ? null : build.nodeMeta(vertical.slug, request.node);
  if (vertical.status === "live" && request.node !== null && !meta) throw apiError("node_not_found", { detail: `No node "${request.node.slice(0, 100)}" in ${vertical.slug}.` });
  const decision = decideRead({ caller, credentialProblem, vertical, node: meta, limits: limitsInForce(ctx.deps) });
  if (decision.meter === "free") ctx.anonymous.assert(ctx.client(), ctx.now);
  const problem = decision.credentialProblem;
  Object.assign(ctx.headers, credentialProblemHeaders(problem));
  if (vertical.status !== "live") {
    const placeholder = await describePlaceholder(ctx.deps, vertical);
    return { bytes: new TextEncoder().encode(JSON.stringify(problem ? { credential_problem: problem, ...placeholder } : placeholder)), etag: null };
  }

  // Per-use tokens are verified before and charged after choosing the content, exactly as on GET /api/demo.
  const perUse = decision.meter === "payment" && caller.kind === "payment" ? await authorizePerUse(ctx.deps, caller.token, ctx.now) : null;
  // "unless-locked" (get_node's default): knowledge only, but a locked view keeps the machine-readable
  // `unlock` hint (the lean artifact has none), since what would open the node is then the answer.
  const lean = request.lean === "unless-locked" ? true : (request.lean ?? false);
  let artifact: Artifact = meta
    ? await build.node(vertical.slug, meta.id, (decision.view === "full" ? (lean ? "lean" : "full") : lean ? "locked.lean" : "locked") as NodeVariant)
    : await build.index(vertical.slug, lean);
  if (layers) artifact = ctx.selector.select(artifact, layers);
  if (request.lean === "unless-locked" && decision.view === "locked" && meta) {
    // Its own tag: encoded answers are cached by tag, and an explicit lean: true has no hint.
    artifact = { bytes: prependJsonMember(artifact.bytes, "unlock", toUnlockHint(vertical, meta, limitsInForce(ctx.deps))), etag: `${artifact.etag}+unlock` };
  }
  // A warned answer is not the artifact: no ETag, so no cached encoding of it is reused.
  if (problem) return { bytes: withCredentialProblem(artifact.bytes, problem), etag: null };
  Object.assign(ctx.headers, await meterRead(ctx.deps, { decision, caller, perUse }, ctx.now));
  return { bytes: artifact.bytes, etag: artifact.etag };
}
