/**
 * One read session for every path that reads content (GET /api/demo, MCP get_node / get_index /
 * resources/read, POST /api/evaluate and the MCP tool, search over REST, MCP and the pages, the
 * node pages of /browse), so none of them can decide, limit or charge differently:
 *
 *   plan:  `decideRead` picks the view and who pays (or refuses); a free read is counted against
 *          the route's per-client limit; a pay token is verified before anything is revealed;
 *   serve: the path picks its bytes (or evaluates, or ranks) with the plan;
 *   meter: `meterRead` counts the key's windows or charges the token, after the answer is ready
 *          and only when it is sent (a 304 or a HEAD never reaches it).
 *
 * Each path adds only what is its own: REST its 304 and HEAD, MCP its unlock hint, evaluate its
 * facts, the pages their cookie.
 */
import { apiError } from "../../shared/errors.ts";
import type { Limits, ResolvedVertical } from "../../shared/schema/catalog.ts";
import type { Artifact, Artifacts, NodeMeta, NodeVariant } from "../../state/releases/artifacts.ts";
import type { DomainDeps } from "../domain-deps.ts";
import type { PerUseGrant } from "../payments/methods/payment-method.ts";
import { authorizeRead } from "../payments/methods/per-use-read.ts";
import type { Caller, Reader } from "./credentials.ts";
import { decideRead, decideSearchMeter, orRefuse, type ReadDecision, type ReadMeter, refuseLocked } from "./decide-read.ts";
import { unknownNode } from "./unknown-names.ts";

/** What `meterRead` needs: who reads, who pays, and the verified per-use payment when one pays. */
export interface ReadSession {
  caller: Caller;
  meter: ReadMeter;
  perUse: PerUseGrant | null;
  /** The limits in force for the build the session started on, read once: a key's windows are metered with these. */
  limits: Limits;
}

export interface ReadPlan extends ReadSession {
  /** The build the request started on: one request never mixes two builds. */
  build: Artifacts;
  vertical: ResolvedVertical;
  /** Null for the index, and for any read of a vertical without content yet (its placeholder). */
  meta: NodeMeta | null;
  decision: ReadDecision;
}

export interface ReadRequest {
  build: Artifacts;
  vertical: ResolvedVertical;
  /** The node, looked up by the path (`findNode`), or null for the vertical's index. */
  meta: NodeMeta | null;
  reader: Reader;
  /** Counts one free read against the route's per-client limit (throws 429); absent where the route bounds free reads itself. */
  freeRead?: () => void | Promise<void>;
  /** "full": a locked view is refused (rules need the logic layer). */
  need?: "any" | "full";
  /** False on the pages, which charge no pay token: a token on a gated node is refused rather than served unpaid. */
  perUseAccepted?: boolean;
  /** False on the pages, whose refusals link to /browse/key rather than carry the machine-readable `unlock` hint. */
  unlockHint?: boolean;
}

/** The node of a live vertical, or its 404 with suggestions; null for the index or a vertical without content. */
export function findNode(build: Artifacts, vertical: ResolvedVertical, nodeId: string | null): NodeMeta | null {
  if (vertical.status !== "live" || nodeId === null) return null;
  const meta = build.nodeMeta(vertical.slug, nodeId);
  if (!meta) throw unknownNode(build, vertical.slug, nodeId);
  return meta;
}

/**
 * Plans a read of one node or index: the decision (a refusal is thrown), the free-read limit, the
 * pay token. No promise when there is nothing to wait for (a key's read): a hot path then awaits
 * nothing, and `await` still works for the others.
 */
export function planRead(deps: DomainDeps, request: ReadRequest, now: number): ReadPlan | Promise<ReadPlan> {
  const { build, vertical, meta, reader } = request;
  const { caller, credentialProblem } = reader;
  // The pinned build's limits, not the current ones: a release swapped in since the request began must not mix in.
  const limits = deps.build.limitsOf(build);
  const input = {
    caller,
    credentialProblem,
    vertical,
    node: meta,
    ...(request.unlockHint === false ? {} : { limits }),
  };
  const decision = orRefuse(decideRead(input));
  if (request.need === "full" && decision.view === "locked") throw refuseLocked(input);
  if (request.perUseAccepted === false && caller.kind === "payment" && meta && !vertical.fully_open) {
    throw apiError("per_use_not_accepted", {
      detail:
        "The browse pages do not charge per-use payment tokens; read this node with a key, or fetch it from GET /api/demo with the token.",
    });
  }
  // Nothing to wait for on a key's read: no promise then, and the plan is one literal (copying the
  // session into it with a spread was a visible share of a metered request in profiles).
  const begun = _begin(deps, caller, decision.meter, request.freeRead, now);
  if (begun === null) return { caller, meter: decision.meter, perUse: null, limits, build, vertical, meta, decision };
  return begun.then((perUse) => ({ caller, meter: decision.meter, perUse, limits, build, vertical, meta, decision }));
}

/**
 * Plans a search over `scope`: one retrieval when its snippets may quote gated layers the caller
 * unlocked (`decideSearchMeter`), else free. Free searches are bounded by the route (anonymous
 * callers only), before the query is parsed.
 */
export async function planSearch(deps: DomainDeps, caller: Caller, scope: readonly ResolvedVertical[], now: number): Promise<ReadSession> {
  const meter = decideSearchMeter(caller, scope);
  const limits = deps.build.limits;
  const begun = _begin(deps, caller, meter, undefined, now);
  return { caller, meter, perUse: begun === null ? null : await begun, limits };
}

/** The prebuilt bytes the plan allows: the node's full or locked view, or the index; lean or not. */
export function planArtifact(plan: ReadPlan, lean: boolean): Artifact | Promise<Artifact> {
  const { build, vertical, meta, decision } = plan;
  if (!meta) return build.index(vertical.slug, lean);
  const variant: NodeVariant = decision.view === "full" ? (lean ? "lean" : "full") : lean ? "locked.lean" : "locked";
  return build.node(vertical.slug, meta.id, variant);
}

// --- Internal helpers ---

/** Counts a free read, or verifies the pay token that pays; null when there is nothing to do (a key's read). */
function _begin(
  deps: DomainDeps,
  caller: Caller,
  meter: ReadMeter,
  freeRead: (() => void | Promise<void>) | undefined,
  now: number,
): Promise<PerUseGrant | null> | null {
  if (meter === "free") return freeRead === undefined ? null : _freeRead(freeRead);
  // Only a node of a live vertical (or a gated search) is ever metered "payment", so a placeholder never verifies a payment.
  if (meter === "payment" && caller.kind === "payment") return authorizeRead(deps, caller.payment, now);
  return null;
}

async function _freeRead(freeRead: () => void | Promise<void>): Promise<null> {
  await freeRead();
  return null;
}
