/**
 * The access matrix, in one pure function shared by REST and MCP.
 *
 * | caller        | fully open | index-free vertical              | other paid vertical |
 * |---------------|------------|----------------------------------|---------------------|
 * | none          | all layers | index layer only (locked view)   | 402                 |
 * | trial key     | all layers | its vertical: all layers (travel: trial modules only, else 403); other verticals' nodes 403 |
 * | membership    | all layers | its vertical + ai-compliance (`all` keys: everything); other verticals' nodes 403     |
 * | payment token | all layers | all layers, charged per content node request                                          |
 *
 * Index requests (no node) carry no layers: they need only the right to see the vertical.
 */
import { apiError } from "../errors.ts";
import type { ResolvedVertical } from "../schema/catalog.ts";
import type { KeyRecord } from "../schema/keys.ts";
import type { Caller } from "./credentials.ts";

export type AccessView = "full" | "locked";

export interface AccessInput {
  caller: Caller;
  vertical: ResolvedVertical;
  /** The node's trial flag, or null for an index request. */
  node: { trial: boolean } | null;
}

export function resolveAccess({ caller, vertical, node }: AccessInput): AccessView {
  if (vertical.fully_open) return "full";
  if (caller.kind === "payment") return "full";
  if (caller.kind === "key") {
    if (keyCoversVertical(caller.record, vertical)) {
      if (node && caller.record.type === "trial" && !node.trial) {
        throw apiError("module_not_in_trial", { detail: `Node is not one of the trial modules of ${vertical.slug}.` });
      }
      return "full";
    }
    if (node === null && vertical.index_free) return "locked";
    throw apiError("vertical_forbidden", { detail: `This key unlocks ${_describe(caller.record)}, not ${vertical.slug}.` });
  }
  if (vertical.index_free) return "locked";
  throw apiError("payment_required", {
    detail: `${vertical.slug} needs a membership key or a per-use payment token.`,
    extra: { unlock: unlockOptions() },
  });
}

/**
 * `resolveAccess` for a content request (a node's layers, or rules evaluated over them): adds the
 * one rule that is not about the matrix, that per-use payment tokens are not charged on this
 * path. GET /api/demo and MCP `get_node` charge them through `runtime/payments/per-use.ts` and
 * call `resolveAccess` directly; the other content routes (evaluate, search) still refuse them.
 */
export function resolveContentAccess(input: AccessInput): AccessView {
  const view = resolveAccess(input);
  if (input.caller.kind === "payment" && input.node && !input.vertical.fully_open) {
    throw apiError("payment_provider_unavailable", { detail: "Per-use payment tokens are not accepted on this deployment yet; use a key." });
  }
  return view;
}

export function keyCoversVertical(record: KeyRecord, vertical: ResolvedVertical): boolean {
  if (vertical.fully_open) return true;
  if (record.type === "trial") return record.vertical === vertical.slug;
  return record.vertical === "all" || record.vertical === vertical.slug || vertical.included_with_membership;
}

/** How a caller without access can get it; carried by 402 problems and the locked view's cta. */
export function unlockOptions() {
  return {
    trial: { method: "POST", path: "/api/trial", verticals: ["ai-compliance", "travel"] },
    membership: { method: "POST", path: "/api/checkout" },
    per_use: { header: "pay-network-pay-id", price_usd: "0.002" },
  };
}

// --- Internal helpers ---

function _describe(record: KeyRecord): string {
  if (record.vertical === "all") return "every vertical";
  return record.type === "trial" ? `the ${record.vertical} trial` : `${record.vertical} and ai-compliance`;
}
