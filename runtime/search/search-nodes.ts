/**
 * Ranked full-text search for one caller, shared by `GET /api/search` and the MCP `search` tool.
 * Reads only the posting lists of the query's terms from the build's per-vertical indexes (no
 * node is scanned), scores BM25 over the layers the caller may read of each node, and quotes the
 * snippet from those layers only.
 *
 * Access is the matrix of `GET /api/demo`, per node: a node whose layers the caller has unlocked
 * is searched in all five layers, any other readable node in its index layer (title + summary).
 * Quota: a search is free unless it reads gated layers a key unlocked (a vertical in scope that is
 * not fully open and that the key covers); then it counts as one retrieval for that key.
 */
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { apiError, isApiError } from "../errors.ts";
import type { Caller } from "../access/credentials.ts";
import { keyCoversVertical, resolveAccess, resolveContentAccess } from "../access/resolve-access.ts";
import { meterKey } from "../metering/meter.ts";
import type { ResolvedVertical } from "../schema/catalog.ts";
import { tokenizeForSearch, type SearchIndex, type SearchResponse, type SearchResult } from "../schema/search.ts";

export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 50;
export const SEARCH_MAX_QUERY = 200;

export interface SearchQuery {
  q: string | null;
  /** Any accepted slug (aliases too); null for every vertical the caller can see. */
  vertical: string | null;
  limit: number | null;
}

export interface SearchOutcome {
  body: SearchResponse;
  /** RateLimit headers when the search was metered, else empty. */
  headers: Record<string, string>;
  metered: boolean;
}

/** BM25 constants and the weight of each layer (index, logic, directive, skill, action). */
const K1 = 1.2;
const B = 0.75;
const LAYER_WEIGHTS = [2, 1, 0.8, 0.6, 0.6];
/** Deprecated nodes still match, below their replacements. */
const DEPRECATED_FACTOR = 0.5;

/**
 * @example await searchNodes(deps, { kind: "anonymous" }, { q: "delayed flight", vertical: "travel", limit: 5 }, now)
 */
export async function searchNodes(deps: AppDeps, caller: Caller, query: SearchQuery, now: number): Promise<SearchOutcome> {
  const terms = _parseQuery(query.q);
  const limit = query.limit ?? SEARCH_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT) {
    throw apiError("validation_failed", { detail: `"limit" must be from 1 to ${SEARCH_MAX_LIMIT}.`, errors: [{ pointer: "/query/limit", message: `must be from 1 to ${SEARCH_MAX_LIMIT}` }] });
  }

  // 1. Scope: the named vertical (its access errors surface as on /api/demo), or every live
  //    vertical the caller can at least see the index of (the others are skipped silently).
  const build = deps.build.current;
  let scope: ResolvedVertical[];
  if (query.vertical !== null) {
    const vertical = build.resolveVertical(query.vertical);
    if (!vertical) throw apiError("vertical_unknown", { detail: `"${query.vertical.slice(0, 64)}" is not a vertical.` });
    if (vertical.status === "live") resolveAccess({ caller, vertical, node: null });
    scope = vertical.status === "live" ? [vertical] : [];
  } else {
    scope = build.catalog.verticals.filter((v) => v.status === "live" && _canSeeIndex(caller, v));
  }

  // 2. Score each vertical from its posting lists only.
  const results: SearchResult[] = [];
  for (const vertical of scope) {
    const index = await build.search(vertical.slug);
    if (index) results.push(..._scoreVertical(index, terms, _layerGate(caller, vertical)));
  }
  results.sort((a, b) => b.score - a.score || (a.vertical < b.vertical ? -1 : a.vertical > b.vertical ? 1 : a.id < b.id ? -1 : 1));

  // 3. Meter once when gated layers a key unlocked were read.
  const metered = caller.kind === "key" && scope.some((v) => !v.fully_open && keyCoversVertical(caller.record, v));
  const headers = metered && caller.kind === "key" ? (await meterKey(deps.backend, limitsInForce(deps), caller.record, now)).headers : {};
  return { body: { results: results.slice(0, limit) }, headers, metered };
}

// --- Internal helpers ---

function _parseQuery(q: string | null): string[] {
  if (q === null || q.trim() === "") {
    throw apiError("validation_failed", { detail: `"q" is required: the words to search for.`, errors: [{ pointer: "/query/q", message: "required" }] });
  }
  if (q.length > SEARCH_MAX_QUERY) {
    throw apiError("validation_failed", { detail: `"q" is limited to ${SEARCH_MAX_QUERY} characters.`, errors: [{ pointer: "/query/q", message: `at most ${SEARCH_MAX_QUERY} characters` }] });
  }
  const terms = [...new Set(tokenizeForSearch(q))];
  if (terms.length === 0) {
    throw apiError("validation_failed", { detail: `"q" has no searchable words (too short or too common).`, errors: [{ pointer: "/query/q", message: "no searchable words" }] });
  }
  return terms.slice(0, 32);
}

function _canSeeIndex(caller: Caller, vertical: ResolvedVertical): boolean {
  try {
    resolveAccess({ caller, vertical, node: null });
    return true;
  } catch (error) {
    if (isApiError(error)) return false;
    throw error;
  }
}

/** Per node: may the caller read all layers (true) or only the index layer (false)? Two cases per vertical, so cached by trial flag. */
function _layerGate(caller: Caller, vertical: ResolvedVertical): (trial: boolean) => boolean {
  const memo = new Map<boolean, boolean>();
  return (trial) => {
    let open = memo.get(trial);
    if (open === undefined) {
      try {
        open = resolveContentAccess({ caller, vertical, node: { trial } }) === "full";
      } catch (error) {
        if (!isApiError(error)) throw error;
        open = false;
      }
      memo.set(trial, open);
    }
    return open;
  };
}

function _scoreVertical(index: SearchIndex, terms: readonly string[], unlocked: (trial: boolean) => boolean): SearchResult[] {
  const scores = new Map<number, number>();
  // Best layer per doc for the snippet: the readable layer with the highest score contribution.
  const best = new Map<number, { layer: number; score: number }>();
  for (const term of terms) {
    const entry = index.terms[term];
    if (!entry) continue;
    const p = entry.postings;
    for (let i = 0; i < p.length; i += 3) {
      const doc = p[i]!;
      const layer = p[i + 1]!;
      const tf = p[i + 2]!;
      const d = index.docs[doc]!;
      if (layer > 0 && !unlocked(d.trial)) continue;
      const norm = 1 - B + (B * d.lengths[layer]!) / (index.avg_lengths[layer]! || 1);
      const s = LAYER_WEIGHTS[layer]! * entry.idf * ((tf * (K1 + 1)) / (tf + K1 * norm));
      scores.set(doc, (scores.get(doc) ?? 0) + s);
      const b = best.get(doc);
      if (!b || s > b.score) best.set(doc, { layer, score: s });
    }
  }
  const out: SearchResult[] = [];
  for (const [doc, raw] of scores) {
    const d = index.docs[doc]!;
    const score = raw * (d.status === "deprecated" ? DEPRECATED_FACTOR : 1);
    out.push({ id: d.id, vertical: index.vertical, title: d.title, summary: d.summary, score: Math.round(score * 10_000) / 10_000, snippet: _snippet(d.passages[best.get(doc)!.layer]!, terms, d.summary) });
  }
  return out;
}

/** The passage of the chosen layer that holds the most query terms (the first on a tie). */
function _snippet(passages: readonly string[], terms: readonly string[], fallback: string): string {
  let chosen = passages[0] ?? fallback;
  let most = 0;
  for (const passage of passages) {
    const words = new Set(tokenizeForSearch(passage));
    const hits = terms.filter((t) => words.has(t)).length;
    if (hits > most) (most = hits), (chosen = passage);
  }
  return chosen;
}
