/**
 * A node or an index for one caller, as `GET /api/demo` answers it: the same plan (`planRead`:
 * view, metering, a refused key on free content, the free-read limit, the pay token), the same
 * prebuilt variants, the same layer selection and the same metering (`meterRead`). Used by the
 * `get_node` / `get_index` tools and by resources/read.
 */

import { credentialProblemHeaders, withCredentialProblem } from "../../domain/access/credential-problem.ts";
import { type Caller, toReader } from "../../domain/access/credentials.ts";
import { findNode, planArtifact, planRead } from "../../domain/access/read-session.ts";
import { unknownVertical } from "../../domain/access/unknown-names.ts";
import { describePlaceholder } from "../../domain/growth/vertical-placeholder.ts";
import { parseLayerSelection } from "../../domain/layers/select-layers.ts";
import { meterRead } from "../../domain/metering/meter-read.ts";
import type { KnowledgeIdentity, SignatureHeaders } from "../../shared/answer-signature.ts";
import { apiError } from "../../shared/errors.ts";
import { prependJsonMember } from "../../shared/http/json-member.ts";
import type { LayerName } from "../../shared/schema/catalog.ts";
import { toUnlockHint } from "../../shared/schema/unlock.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import type { McpContext } from "./context.ts";

export interface ContentRequest {
  vertical: string;
  /** Null for the vertical's root index. */
  node: string | null;
  /** true/false as on REST; "unless-locked": lean for a readable node, full (with `unlock`) for a locked view. */
  lean?: boolean | "unless-locked";
  layers?: readonly LayerName[];
  /** Who reads, when the call decided it (a per-use payment, `paid-call.ts`); else the request's credentials. */
  caller?: Caller;
}

export interface ContentAnswer {
  /** The JSON exactly as REST sends it (the prebuilt bytes when there are any; never re-parsed). */
  bytes: Uint8Array;
  /** The artifact's ETag (its digest, plus the layer selection): a key for caches of derived forms. Null for a placeholder. */
  etag: string | null;
  /** What the bytes are; null for a placeholder (no knowledge to vouch for). */
  identity: KnowledgeIdentity | null;
  /** The signature of exactly these bytes when one exists already (the build's, a cached selection's); null: sign before sending. */
  signature: SignatureHeaders | null;
}

export async function readContent(ctx: McpContext, request: ContentRequest): Promise<ContentAnswer> {
  const build = ctx.deps.build.current;
  const vertical = build.resolveVertical(request.vertical);
  if (!vertical) throw unknownVertical(build, request.vertical);
  const layers = request.layers?.length ? parseLayerSelection(request.layers.join(",")) : null;
  if (layers && request.node === null)
    throw apiError("validation_failed", { detail: `"layers" applies to a node; an index carries no layers.` });

  // Each step awaited only when pending (as GET /api/demo does): a cached key's read takes no turn of its own.
  const asked = request.caller ? toReader(request.caller) : ctx.reader();
  const reader = asked instanceof Promise ? await asked : asked;
  const meta = findNode(build, vertical, request.node);
  const planned = planRead(
    ctx.deps,
    { build, vertical, meta, reader, freeRead: () => ctx.anonymous.assert(ctx.client(), ctx.now) },
    ctx.now,
  );
  const plan = planned instanceof Promise ? await planned : planned;
  const { decision } = plan;
  const problem = decision.credentialProblem;
  Object.assign(ctx.headers, credentialProblemHeaders(problem));
  if (vertical.status !== "live") {
    const placeholder = await describePlaceholder(ctx.deps, vertical);
    return {
      bytes: new TextEncoder().encode(JSON.stringify(problem ? { credential_problem: problem, ...placeholder } : placeholder)),
      etag: null,
      identity: null,
      signature: null,
    };
  }

  // "unless-locked" (get_node's default): knowledge only, but a locked view keeps the machine-readable
  // `unlock` hint (the lean artifact has none), since what would open the node is then the answer.
  const lean = request.lean === "unless-locked" ? true : (request.lean ?? false);
  const chosen = planArtifact(plan, lean);
  let artifact = chosen instanceof Promise ? await chosen : chosen;
  if (layers) artifact = ctx.selector.select(artifact, layers);
  if (request.lean === "unless-locked" && decision.view === "locked" && meta) {
    // Its own tag: encoded answers are cached by tag, and an explicit lean: true has no hint.
    // Other bytes than the build's: signed when first encoded (methods.ts caches that by ETag).
    artifact = {
      bytes: prependJsonMember(artifact.bytes, "unlock", toUnlockHint(vertical, meta, limitsInForce(ctx.deps))),
      etag: `${artifact.etag}+unlock`,
      identity: artifact.identity,
      signature: null,
    };
  }
  // A warned answer is not the artifact: no ETag, so no cached encoding of it is reused.
  if (problem) return { bytes: withCredentialProblem(artifact.bytes, problem), etag: null, identity: artifact.identity, signature: null };
  Object.assign(ctx.headers, await meterRead(ctx.deps, plan, ctx.now));
  return { bytes: artifact.bytes, etag: artifact.etag, identity: artifact.identity, signature: artifact.signature };
}
