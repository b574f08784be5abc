/**
 * Identities of dynamic answers. What the answer was computed from (facts, query) is covered by a
 * digest of its RFC 8785 canonical JSON (the `canonicalize` package), so anyone holding the same
 * input can recompute it, whatever key order their JSON had.
 */
import canonicalizeModule from "canonicalize";
import { inputDigest, type KnowledgeIdentity } from "../../shared/answer-signature.ts";
import type { Artifacts, NodeMeta } from "../../state/releases/artifacts.ts";

/** An evaluation of a node's rules over facts given as their canonical JSON (`canonicalJson`). */
export function evaluationIdentity(build: Artifacts, meta: NodeMeta, canonicalFacts: string): KnowledgeIdentity {
  return {
    vertical: meta.vertical,
    node: meta.id,
    version: meta.version,
    view: "evaluation",
    input: inputDigest(canonicalFacts),
    build: build.buildId,
  };
}

/** A search: the query as asked (absent members as null), scoped to the canonical vertical or `*` for all. */
export function searchIdentity(
  build: Artifacts,
  query: { q: string | null; vertical: string | null; limit: number | null },
): KnowledgeIdentity {
  return _queryIdentity(build, "search", query.vertical, { q: query.q, vertical: query.vertical, limit: query.limit });
}

/** A page of the change feed. */
export function deltaIdentity(
  build: Artifacts,
  query: { vertical: string | null; since: string | null; cursor: string | null; limit: number | null },
): KnowledgeIdentity {
  return _queryIdentity(build, "delta", query.vertical, {
    vertical: query.vertical,
    since: query.since,
    cursor: query.cursor,
    limit: query.limit,
  });
}

/** base64 sha-256 of the RFC 8785 canonical JSON of a value. */
export function canonicalDigest(value: unknown): string {
  return inputDigest(canonicalJson(value));
}

/** The RFC 8785 canonical JSON of a value (what `canonicalDigest` hashes). */
export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? "null";
}

// --- Internal helpers ---

// The package is CommonJS (`module.exports = serialize`) while its types declare an ES default
// export; Node, esbuild and vitest all hand the function itself to a default import.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

function _queryIdentity(
  build: Artifacts,
  view: "search" | "delta",
  vertical: string | null,
  query: Record<string, unknown>,
): KnowledgeIdentity {
  // Callers have resolved the vertical already; an unknown one would have been refused.
  const slug = vertical === null ? "*" : (build.resolveVertical(vertical)?.slug ?? encodeURIComponent(vertical));
  return { vertical: slug, view, input: canonicalDigest(query), build: build.buildId };
}
