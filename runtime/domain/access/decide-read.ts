/**
 * The one decision for reading content, shared by GET /api/demo, MCP get_node / get_index /
 * resources, POST /api/evaluate and search: which view the caller gets and who pays for it.
 * Everything that decides "meter this request" reads `ReadDecision.meter`, nowhere else.
 *
 * | caller \ content | index (index-free) | fully open node | gated node it unlocks | gated node it does not unlock       |
 * |------------------|--------------------|-----------------|-----------------------|-------------------------------------|
 * | none             | free               | free            | —                     | free locked view + `unlock`          |
 * | valid key        | free               | free            | full, `key` metered   | free locked view + `unlock`          |
 * | pay token        | free               | free            | full, `payment`       | —                                    |
 * | refused key      | free + warning     | free + warning  | —                     | free locked view + warning, or 401   |
 *
 * A refused key (malformed, unknown, revoked, expired) reads what a caller without one reads, and
 * is told why in the warning: a key that went bad must not lock its holder out of free pages. Only
 * content with no free view keeps the key's 401: a node of a vertical whose index is not free, and
 * whatever needs the full layers (rules to evaluate, `refuseLocked` there).
 *
 * The refusals are values (`ReadRefusal`), not exceptions: the paths that only ask "may this
 * caller see it?" (search scoping, resource listings) read the union, and the ones that answer a
 * request throw the refusal at their boundary (`orRefuse`).
 *
 * Spec, "What the service does" rule 1: "The index layer is always free", so free content is
 * never metered and never refused for quota, whoever asks; only gated layers count.
 * A vertical whose index is not free (a paid vertical with content, no free index) has no free
 * view: 402 without credentials, 403 for a key that does not unlock it.
 */
import { type ApiError, apiError, ERRORS } from "../../shared/errors.ts";
import type { Limits, ResolvedVertical } from "../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import { type CredentialProblem, toUnlockHint } from "../../shared/schema/unlock.ts";
import type { Caller } from "./credentials.ts";

export type ReadView = "full" | "locked";

/** Who pays for a read: nobody (free content, limited per client only), the key's windows, or the pay token. */
export type ReadMeter = "free" | "key" | "payment";

export interface ReadDecision {
  view: ReadView;
  meter: ReadMeter;
  /** Set when a refused key was ignored to serve free content; sent as a header and a body field. */
  credentialProblem: CredentialProblem | null;
}

/** The read is refused: the problem to answer with (401 for the key itself, 402, or 403). */
export interface ReadRefusal {
  view: "refused";
  refusal: ApiError;
}

export type ReadVerdict = ReadDecision | ReadRefusal;

export interface ReadInput {
  caller: Caller;
  /** The 401 of a presented key that was refused (`toReader`); the caller is then anonymous. */
  credentialProblem?: ApiError | null;
  vertical: ResolvedVertical;
  /** The node's trial flag, or null for the vertical's index (or its placeholder). */
  node: { trial: boolean; id?: string } | null;
  /** For the unlock hint of a refusal; without it refusals carry no hint. */
  limits?: Limits;
}

/**
 * @example decideRead({ caller, vertical: travel, node: { trial: false }, limits }) // { view: "locked", meter: "free", … } for a travel trial key
 */
export function decideRead(input: ReadInput): ReadVerdict {
  const { caller, vertical, node } = input;
  if (_isFree(vertical, node)) {
    return {
      view: "full",
      meter: "free",
      credentialProblem: input.credentialProblem ? toCredentialProblem(input.credentialProblem) : null,
    };
  }
  if (input.credentialProblem) {
    // The free locked view where there is one, with the warning; otherwise the key's own 401.
    if (vertical.index_free && node !== null)
      return { view: "locked", meter: "free", credentialProblem: toCredentialProblem(input.credentialProblem) };
    return { view: "refused", refusal: input.credentialProblem };
  }
  if (caller.kind === "payment") return { view: "full", meter: node === null ? "free" : "payment", credentialProblem: null };
  if (caller.kind === "key" && keyUnlocks(caller.record, vertical, node)) return { view: "full", meter: "key", credentialProblem: null };
  if (vertical.index_free && node !== null) return { view: "locked", meter: "free", credentialProblem: null };
  return { view: "refused", refusal: refuseLocked(input) };
}

/** The decision, or its refusal thrown: for a path that answers the request with it. */
export function orRefuse(verdict: ReadVerdict): ReadDecision {
  if (verdict.view === "refused") throw verdict.refusal;
  return verdict;
}

/** The view the caller would get, or null when refused: for paths that only scope or list (no metering verdict needed). */
export function viewOf(input: ReadInput): ReadView | null {
  const verdict = decideRead(input);
  return verdict.view === "refused" ? null : verdict.view;
}

/**
 * Who pays for a search over `scope`: it reads gated layers when a vertical in scope is not fully
 * open and the caller unlocks it (a key covering it, or a pay token, which unlocks any node); such
 * a search is one retrieval, whatever the number of hits. Searching only free layers is free.
 */
export function decideSearchMeter(caller: Caller, scope: readonly ResolvedVertical[]): ReadMeter {
  if (caller.kind === "anonymous") return "free";
  const gated = scope.some((v) => !v.fully_open && (caller.kind === "payment" || keyCoversVertical(caller.record, v)));
  if (!gated) return "free";
  return caller.kind === "key" ? "key" : "payment";
}

/** The problem for content the caller cannot read and that has no free view (or that must be full, as rules to evaluate). */
export function refuseLocked({ caller, vertical, node, limits }: ReadInput): ApiError {
  const extra = limits ? { unlock: toUnlockHint(vertical, node, limits) } : undefined;
  if (caller.kind !== "key") {
    return apiError("payment_required", {
      detail: `The layers of ${vertical.slug} need a key or a per-use payment token; without them only the index layer is free.`,
      ...(extra ? { extra } : {}),
    });
  }
  if (keyCoversVertical(caller.record, vertical)) {
    return apiError("module_not_in_trial", {
      detail: `Node is not one of the trial modules of ${vertical.slug}.`,
      ...(extra ? { extra } : {}),
    });
  }
  return apiError("vertical_forbidden", {
    detail: `This key unlocks ${describeKeyScope(caller.record)}, not ${vertical.slug}.`,
    ...(extra ? { extra } : {}),
  });
}

/** Does the key open this node's layers (or, for `node: null`, the vertical's gated index)? */
export function keyUnlocks(record: KeyRecord, vertical: ResolvedVertical, node: { trial: boolean } | null): boolean {
  if (!keyCoversVertical(record, vertical)) return false;
  return record.type !== "trial" || node === null || node.trial;
}

export function keyCoversVertical(record: KeyRecord, vertical: ResolvedVertical): boolean {
  if (vertical.fully_open) return true;
  if (record.type === "trial") return record.vertical === vertical.slug;
  return record.vertical === "all" || record.vertical === vertical.slug || vertical.included_with_membership;
}

/** What a key opens, in words: "every vertical", "the travel trial", "travel and ai-compliance", "ai-compliance". */
export function describeKeyScope(record: KeyRecord): string {
  if (record.vertical === "all") return "every vertical";
  if (record.type === "trial") return `the ${record.vertical} trial`;
  // A membership always includes ai-compliance; an ai-compliance membership is just that.
  return record.vertical === "ai-compliance" ? "ai-compliance" : `${record.vertical} and ai-compliance`;
}

export function toCredentialProblem(error: ApiError): CredentialProblem {
  return {
    code: error.code as CredentialProblem["code"],
    title: ERRORS[error.code].title,
    detail: `${error.message} The key was ignored: this answer is what a caller without a key gets (the free view).`,
  };
}

// --- Internal helpers ---

/** Free content: a vertical without content (its placeholder), an index-free index, a fully open vertical. */
function _isFree(vertical: ResolvedVertical, node: { trial: boolean } | null): boolean {
  if (vertical.fully_open || vertical.status !== "live") return true;
  return node === null && vertical.index_free;
}
