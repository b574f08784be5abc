/**
 * The view of a read for callers that only need "full or locked" (search scoping, pages, MCP
 * resources): `decideRead` without its metering verdict, so every path shares one matrix.
 */
import { apiError } from "../errors.ts";
import type { ResolvedVertical } from "../schema/catalog.ts";
import type { ApiError } from "../errors.ts";
import type { Caller } from "./credentials.ts";
import { decideRead, type ReadDecision, type ReadView } from "./decide-read.ts";

export type AccessView = ReadView;

export interface AccessInput {
  caller: Caller;
  vertical: ResolvedVertical;
  /** The node's trial flag, or null for an index request. */
  node: { trial: boolean } | null;
  /** The 401 of a refused key; the caller is then anonymous (see `decideRead`). */
  credentialProblem?: ApiError | null;
}

export function resolveAccess(input: AccessInput): AccessView {
  return decideRead(input).view;
}

/**
 * `resolveAccess` for the pages of `/browse`, which do not charge per-use tokens: a pay token on a
 * gated node is refused there (402 `per_use_not_accepted`, naming GET /api/demo) rather than served unpaid. Every API read path (demo, MCP,
 * evaluate, search) charges tokens through `decideRead` / `meterRead` instead.
 */
export function resolveContentAccess(input: AccessInput): ReadDecision {
  const decision = decideRead(input);
  if (input.caller.kind === "payment" && input.node && !input.vertical.fully_open) {
    throw apiError("per_use_not_accepted", { detail: "The browse pages do not charge per-use payment tokens; read this node with a key, or fetch it from GET /api/demo with the token." });
  }
  return decision;
}
