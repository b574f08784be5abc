/**
 * What every read of a node or an index does before it picks bytes, shared by GET /api/demo and
 * MCP (get_node, get_index, resources/read), so the two cannot decide, limit or charge differently:
 * the node is looked up, `decideRead` decides the view and who pays, a free read is held to the
 * per-client limit, and a pay token is verified (it is charged only once content is sent, by
 * `meterRead`). Each caller then adds what is its own: REST its 304 and HEAD, MCP its unlock hint.
 */
import { limitsInForce, type AppDeps } from "../deps.ts";
import { authorizePerUse, type PerUseAuthorization } from "../payments/per-use.ts";
import type { ResolvedVertical } from "../schema/catalog.ts";
import type { Artifact, Artifacts, NodeMeta, NodeVariant } from "../storage/artifacts.ts";
import type { Caller, Reader } from "./credentials.ts";
import { decideRead, type ReadDecision } from "./decide-read.ts";
import { unknownNode } from "./unknown-names.ts";

export interface ReadPlan {
  /** The build the request started on: one request never mixes two builds. */
  build: Artifacts;
  vertical: ResolvedVertical;
  /** Null for the index, and for any read of a vertical without content yet (its placeholder). */
  meta: NodeMeta | null;
  caller: Caller;
  decision: ReadDecision;
  /** The verified pay token when `decision.meter` is "payment". */
  perUse: PerUseAuthorization | null;
}

export interface ReadRequest {
  build: Artifacts;
  vertical: ResolvedVertical;
  /** Null for the vertical's root index. */
  nodeId: string | null;
  reader: Reader;
  /** Throws when the client is over its limit of free reads. */
  assertFreeRead: () => void | Promise<void>;
}

export async function planRead(deps: AppDeps, request: ReadRequest, now: number): Promise<ReadPlan> {
  const { build, vertical, nodeId } = request;
  const { caller, credentialProblem } = request.reader;
  const meta = vertical.status !== "live" || nodeId === null ? null : build.nodeMeta(vertical.slug, nodeId);
  if (vertical.status === "live" && nodeId !== null && !meta) throw unknownNode(build, vertical.slug, nodeId);
  const decision = decideRead({ caller, credentialProblem, vertical, node: meta, limits: limitsInForce(deps) });
  if (decision.meter === "free") await request.assertFreeRead();
  // Only a node of a live vertical is ever metered "payment", so a placeholder never verifies a token.
  const perUse = decision.meter === "payment" && caller.kind === "payment" ? await authorizePerUse(deps, caller.token, now) : null;
  return { build, vertical, meta, caller, decision, perUse };
}

/** The prebuilt bytes the plan allows: the node's full or locked view, or the index; lean or not. */
export function planArtifact(plan: ReadPlan, lean: boolean): Promise<Artifact> {
  const { build, vertical, meta, decision } = plan;
  if (!meta) return build.index(vertical.slug, lean);
  const variant: NodeVariant = decision.view === "full" ? (lean ? "lean" : "full") : lean ? "locked.lean" : "locked";
  return build.node(vertical.slug, meta.id, variant);
}
