/**
 * Ranked full-text search for one caller, shared by `GET /api/search`, the MCP `search` tool and
 * `/browse/search`. Reads only the posting lists of the query's terms from the build's
 * per-vertical indexes (no node is scanned), ranks every node in scope on the same fields
 * (`score.ts`), and says whether anything answers the query well (`match`).
 *
 * Access is the matrix of `GET /api/demo`, per node: results are the nodes of the verticals the
 * caller may see, and a snippet quotes a layer the caller has unlocked, else the summary.
 * Quota: a search is free unless its snippets may quote gated layers the caller unlocked (a
 * vertical in scope that is not fully open and that the key covers, or any with a per-use pay
 * token); then it counts as one retrieval for that key, or one per-use charge.
 */
import { apiError } from "../../shared/errors.ts";
import type { ResolvedVertical } from "../../shared/schema/catalog.ts";
import { GOOD_MATCH_SCORE, type SearchMatch, type SearchResponse, type SearchResult } from "../../shared/schema/search.ts";
import { searchTokens, tokenizeForSearch } from "../../shared/tokenize.ts";
import type { LoadedSearchIndex } from "../../state/releases/search-index.ts";
import { credentialProblemHeaders } from "../access/credential-problem.ts";
import type { Caller, Reader } from "../access/credentials.ts";
import { decideRead, orRefuse, toCredentialProblem, viewOf } from "../access/decide-read.ts";
import { planSearch } from "../access/read-session.ts";
import { unknownVertical } from "../access/unknown-names.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { meterRead } from "../metering/meter-read.ts";
import { type Hit, orderHits, type QueryTerms, scoreVertical, wordWeights } from "./score.ts";

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

/**
 * A refused key (`reader.credentialProblem`) searches as a caller without a key and is warned, as
 * on every free read: the body's `credential_problem` and the `Credential-Problem` header.
 * `count: false` (a HEAD) checks access as usual but consumes nothing.
 * @example await searchNodes(deps, { caller: { kind: "anonymous" }, credentialProblem: null }, { q: "delayed flight", vertical: "travel", limit: 5 }, now)
 */
export async function searchNodes(
  deps: DomainDeps,
  reader: Reader,
  query: SearchQuery,
  now: number,
  { count = true }: { count?: boolean } = {},
): Promise<SearchOutcome> {
  const { caller } = reader;
  const problem = reader.credentialProblem ? toCredentialProblem(reader.credentialProblem) : null;
  const terms = _parseQuery(query.q);
  const words = [...terms.words, ...terms.pairs.map((p) => p.term)];
  const limit = query.limit ?? SEARCH_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT) {
    throw apiError("validation_failed", {
      detail: `"limit" must be from 1 to ${SEARCH_MAX_LIMIT}.`,
      errors: [{ pointer: "/query/limit", message: `must be from 1 to ${SEARCH_MAX_LIMIT}` }],
    });
  }

  // 1. Scope: the named vertical (its access errors surface as on /api/demo), or every live
  //    vertical the caller can at least see the index of (the others are skipped silently).
  const build = deps.build.current;
  let scope: ResolvedVertical[];
  if (query.vertical !== null) {
    const vertical = build.resolveVertical(query.vertical);
    if (!vertical) throw unknownVertical(build, query.vertical);
    if (vertical.status === "live") orRefuse(decideRead({ caller, vertical, node: null }));
    scope = vertical.status === "live" ? [vertical] : [];
  } else {
    scope = build.catalog.verticals.filter((v) => v.status === "live" && viewOf({ caller, vertical: v, node: null }) !== null);
  }

  // The read session: a pay token that would read gated layers is verified before anything is scored.
  const session = await planSearch(deps, caller, scope, now);

  // 2. Score each vertical from its posting lists only, normalised by what the query could score at best.
  const indexes = (await Promise.all(scope.map(async (vertical) => ({ vertical, index: await build.search(vertical.slug) })))).filter(
    (v): v is { vertical: ResolvedVertical; index: LoadedSearchIndex } => v.index !== null,
  );
  const weights = wordWeights(
    terms,
    indexes.map((v) => v.index),
  );
  const scored: Hit[] = [];
  for (const { vertical, index } of indexes) scored.push(...scoreVertical(index, terms, weights, _layerGate(caller, vertical)));
  const hits = orderHits(scored);
  // Snippets only for what is returned: choosing one tokenizes a layer's sentences.
  const results: SearchResult[] = hits.slice(0, limit).map(({ doc, vertical, score, layer }) => ({
    id: doc.id,
    vertical,
    title: doc.title,
    summary: doc.summary,
    score: Math.round(score * 1000) / 1000,
    snippet: _snippet(doc.passages[layer]!, words, doc.summary),
  }));
  // Judged on the first result, whose score is the highest: results come in score order.
  const match: SearchMatch = hits.length === 0 ? "none" : hits[0]!.score >= GOOD_MATCH_SCORE ? "good" : "poor";

  // 3. Meter once when gated layers were read (`decideSearchMeter`): the key's windows or one per-use charge; a HEAD consumes nothing.
  const headers = count ? await meterRead(deps, session, now) : {};
  if (problem)
    return {
      body: { credential_problem: problem, match, results },
      headers: { ...headers, ...credentialProblemHeaders(problem) },
      metered: false,
    };
  return { body: { match, results }, headers, metered: session.meter !== "free" };
}

// --- Internal helpers ---

function _parseQuery(q: string | null): QueryTerms {
  if (q === null || q.trim() === "") {
    throw apiError("validation_failed", {
      detail: `"q" is required: the words to search for.`,
      errors: [{ pointer: "/query/q", message: "required" }],
    });
  }
  if (q.length > SEARCH_MAX_QUERY) {
    throw apiError("validation_failed", {
      detail: `"q" is limited to ${SEARCH_MAX_QUERY} characters.`,
      errors: [{ pointer: "/query/q", message: `at most ${SEARCH_MAX_QUERY} characters` }],
    });
  }
  const { words, pairs, pairWords } = searchTokens(q);
  if (words.length === 0) {
    throw apiError("validation_failed", {
      detail: `"q" has no searchable words (too short or too common).`,
      errors: [{ pointer: "/query/q", message: "no searchable words" }],
    });
  }
  const seen = new Set<string>();
  return {
    words: [...new Set(words)].slice(0, 32),
    pairs: pairs
      .map((term, i) => ({ term, words: pairWords[i]! }))
      .filter((p) => !seen.has(p.term) && seen.add(p.term))
      .slice(0, 32),
  };
}

/** Per node: may the caller read all layers (true) or only the index layer (false)? Two cases per vertical, so cached by trial flag. */
function _layerGate(caller: Caller, vertical: ResolvedVertical): (trial: boolean) => boolean {
  const memo = new Map<boolean, boolean>();
  return (trial) => {
    let open = memo.get(trial);
    if (open === undefined) {
      open = viewOf({ caller, vertical, node: { trial } }) === "full";
      memo.set(trial, open);
    }
    return open;
  };
}

/**
 * Terms of each sentence of a layer, tokenized on first use and kept as long as the loaded index
 * (the key is the index's own array), so repeated searches do not stem the same sentences again.
 */
const passageTerms = new WeakMap<readonly string[], ReadonlyArray<ReadonlySet<string>>>();

/** The passage of the chosen layer that holds the most query terms (the first on a tie). */
function _snippet(passages: readonly string[], terms: readonly string[], fallback: string): string {
  let sets = passageTerms.get(passages);
  if (!sets) passageTerms.set(passages, (sets = passages.map((p) => new Set(tokenizeForSearch(p)))));
  let chosen = passages[0] ?? fallback;
  let most = 0;
  sets.forEach((words, i) => {
    const hits = terms.filter((t) => words.has(t)).length;
    if (hits > most) (most = hits), (chosen = passages[i]!);
  });
  return chosen;
}
