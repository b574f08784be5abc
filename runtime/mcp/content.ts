/**
 * A node or an index for one caller, as `GET /api/demo` answers it: the same access matrix
 * (`resolveContentAccess`), the same prebuilt variants, the same layer selection and the same
 * metering (`meterKey`). Used by the `get_node` / `get_index` tools and by resources/read.
 */
import { limitsInForce } from "../deps.ts";
import { apiError } from "../errors.ts";
import { resolveAccess, resolveContentAccess } from "../access/resolve-access.ts";
import { authorizePerUse, chargePerUse } from "../payments/per-use.ts";
import { meterKey } from "../metering/meter.ts";
import { parseLayerSelection } from "../layers/select-layers.ts";
import type { LayerName } from "../schema/catalog.ts";
import type { Artifact, NodeVariant } from "../storage/artifacts.ts";
import { describePlaceholder } from "../routes/vertical-placeholder.ts";
import type { McpContext } from "./context.ts";

export interface ContentRequest {
  vertical: string;
  /** Null for the vertical's root index. */
  node: string | null;
  lean?: boolean;
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

  const caller = await ctx.caller();
  if (caller.kind === "anonymous") ctx.anonymous.assert(ctx.client(), ctx.now);
  if (vertical.status !== "live") {
    return { bytes: new TextEncoder().encode(JSON.stringify(await describePlaceholder(ctx.deps, vertical))), etag: null };
  }

  const meta = request.node === null ? null : build.nodeMeta(vertical.slug, request.node);
  if (request.node !== null && !meta) throw apiError("node_not_found", { detail: `No node "${request.node.slice(0, 100)}" in ${vertical.slug}.` });
  // Per-use tokens are verified before and charged after choosing the content, exactly as on GET /api/demo.
  const perUse = caller.kind === "payment" && meta !== null && !vertical.fully_open ? await authorizePerUse(ctx.deps, caller.token, ctx.now) : null;
  const view = perUse ? resolveAccess({ caller, vertical, node: meta }) : resolveContentAccess({ caller, vertical, node: meta });
  const lean = request.lean ?? false;
  let artifact: Artifact = meta
    ? await build.node(vertical.slug, meta.id, (view === "full" ? (lean ? "lean" : "full") : lean ? "locked.lean" : "locked") as NodeVariant)
    : await build.index(vertical.slug, lean);
  if (layers) artifact = ctx.selector.select(artifact, layers);
  if (caller.kind === "key") Object.assign(ctx.headers, (await meterKey(ctx.deps.backend, limitsInForce(ctx.deps), caller.record, ctx.now)).headers);
  if (perUse) Object.assign(ctx.headers, await chargePerUse(ctx.deps, perUse, ctx.now));
  return { bytes: artifact.bytes, etag: artifact.etag };
}
