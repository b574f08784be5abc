/**
 * Scoring for search: BM25F over the fields of a vertical's prebuilt index, and one score per
 * result, 0–1, that is both the order of the results and what tells a good answer from the least
 * bad of unrelated ones (`orderHits`).
 *
 * Every caller is ranked on the same fields of every node (title with the id's words, questions,
 * summary and the four layers), whatever it may read: a node's place must not depend on whether
 * the caller's key unlocks its layers, nor a fully open vertical outrank the others because more
 * of its text is searched. What a caller gets back stays limited to what it may read: the snippet
 * is quoted from a layer it has unlocked, else from the summary.
 */
import { SEARCH_FIELD_LAYER, SEARCH_LAYERS, type SearchDoc } from "../../shared/schema/search.ts";
import type { LoadedSearchIndex } from "../../state/releases/search-index.ts";

/**
 * BM25F: a term's frequencies in the fields are length-normalised per field, weighted, summed, and
 * only then saturated, so a word repeated through the body layers adds at most one saturated
 * term's worth and cannot outweigh matches in titles, questions and summaries. In SEARCH_FIELDS
 * order (title, questions, summary, logic, directive, skill, action).
 */
const K1 = 1.2;
const FIELD_WEIGHTS = [3, 2.5, 1.5, 0.6, 0.4, 0.3, 0.3];
const FIELD_B = [0.3, 0.3, 0.5, 0.75, 0.75, 0.75, 0.75];
/**
 * The same weights for `score` (how well a node covers the query), with the body layers nearly
 * silent: a node answers a question when its title, questions or summary say so, not when its body
 * mentions the words in passing (the escrow node saying security deposits are out of its scope
 * does not answer "security deposit return").
 */
const COVER_WEIGHTS = [3, 2.5, 1.5, 0.2, 0.15, 0.1, 0.1];
/** Deprecated nodes still match, below their replacements. */
const DEPRECATED_FACTOR = 0.5;

/** A query as the index knows it: its stemmed words, and its adjacent pairs joined as one term. */
export interface QueryTerms {
  words: readonly string[];
  /** Each pair with the two words it joins. */
  pairs: ReadonlyArray<{ term: string; words: readonly [string, string] }>;
}

/** A scored node before its snippet is chosen; `layer` is the readable layer that matched best. */
export interface Hit {
  doc: SearchDoc;
  vertical: string;
  /** BM25F, for the order. */
  rank: number;
  /** How much of the query the node covers, 0–1 (see `scoreVertical`); after `orderHits`, the result's one score. */
  score: number;
  layer: number;
}

/**
 * The weight of each query word: its inverse document frequency over the whole build. A word no
 * node uses weighs as one that a single node uses: a question about something the content never
 * names (HIPAA, a minimum wage, Canada's passenger rules) is then not covered well by a node that
 * matches its other, generic words, which is what calibrated `match` (test/people/
 * search-calibration.json); a paraphrase the content lacks costs a covered question as much.
 */
export function wordWeights(query: QueryTerms, indexes: readonly LoadedSearchIndex[]): Map<string, number> {
  const docCount = Math.max(...indexes.map((i) => i.doc_count), 1);
  const unseen = Math.log(1 + (docCount - 1 + 0.5) / (1 + 0.5));
  return new Map(query.words.map((word) => [word, indexes.map((i) => i.terms.get(word)?.idf).find((idf) => idf !== undefined) ?? unseen]));
}

/**
 * Every node of the index that matches a term. `rank` is BM25F over all fields (pairs add to it);
 * `score` is the share of the query's weight the node covers: each word counts by its weight times
 * how strongly the node holds it, `tf / (tf + k1)` of its frequency weighted by COVER_WEIGHTS (a
 * word in the title, questions and summary nears 1; a mention in a body layer stays small), and a
 * word the node holds only as part of a matching pair ("deepfake" for "deep fake") counts as held
 * that strongly.
 */
export function scoreVertical(
  index: LoadedSearchIndex,
  query: QueryTerms,
  weights: ReadonlyMap<string, number>,
  readable: (trial: boolean) => boolean,
): Hit[] {
  const rank = new Map<number, number>();
  // Per doc: how strongly it holds each query word (0–1), and the weighted frequency per readable layer (the snippet's layer is the highest).
  const held = new Map<number, Map<string, number>>();
  const byLayer = new Map<number, number[]>();
  const weighted = new Map<number, number>();
  const covering = new Map<number, number>();
  const terms = [...query.words.map((word) => ({ term: word, words: [word] as readonly string[] })), ...query.pairs];
  for (const { term, words } of terms) {
    const entry = index.terms.get(term);
    if (!entry) continue;
    weighted.clear();
    covering.clear();
    const p = entry.postings;
    for (let i = 0; i < p.length; i += 3) {
      const doc = p[i]!;
      const field = p[i + 1]!;
      const tf = p[i + 2]!;
      const d = index.docs[doc]!;
      const b = FIELD_B[field]!;
      const norm = 1 - b + (b * d.lengths[field]!) / (index.avg_lengths[field]! || 1);
      const w = (FIELD_WEIGHTS[field]! * tf) / norm;
      weighted.set(doc, (weighted.get(doc) ?? 0) + w);
      covering.set(doc, (covering.get(doc) ?? 0) + (COVER_WEIGHTS[field]! * tf) / norm);
      const layer = SEARCH_FIELD_LAYER[field]!;
      if (layer > 0 && !readable(d.trial)) continue;
      let layers = byLayer.get(doc);
      if (!layers) byLayer.set(doc, (layers = SEARCH_LAYERS.map(() => 0)));
      layers[layer]! += w;
    }
    for (const [doc, tf] of weighted) {
      rank.set(doc, (rank.get(doc) ?? 0) + (entry.idf * tf * (K1 + 1)) / (tf + K1));
      let words_ = held.get(doc);
      if (!words_) held.set(doc, (words_ = new Map()));
      const cover = covering.get(doc)!;
      for (const word of words) words_.set(word, Math.max(words_.get(word) ?? 0, cover / (cover + K1)));
    }
  }
  let total = 0;
  for (const weight of weights.values()) total += weight;
  const out: Hit[] = [];
  for (const [doc, sum] of rank) {
    const d = index.docs[doc]!;
    let covered = 0;
    for (const [word, strength] of held.get(doc)!) covered += (weights.get(word) ?? 0) * strength;
    const factor = d.status === "deprecated" ? DEPRECATED_FACTOR : 1;
    const layers = byLayer.get(doc) ?? [0];
    out.push({
      doc: d,
      vertical: index.vertical,
      rank: sum * factor,
      score: (covered / (total || 1)) * factor,
      layer: layers.indexOf(Math.max(...layers)),
    });
  }
  return out;
}

/**
 * The one score of a result, and the order: how much of the query the node covers (`score` of
 * `scoreVertical`), times its BM25F relevance relative to the best-ranked node of this search. The
 * best-ranked node keeps its coverage; a node that covers the query's words but ranks far below it
 * (a passing mention in a long body) falls back. Sorted by that score, ties by relevance, then by
 * vertical and id, so the order is the same on every run.
 */
export function orderHits(hits: readonly Hit[]): Hit[] {
  let best = 0;
  for (const h of hits) if (h.rank > best) best = h.rank;
  return hits
    .map((h) => ({ ...h, score: best > 0 ? (h.score * h.rank) / best : 0 }))
    .sort(
      (a, b) =>
        b.score - a.score ||
        b.rank - a.rank ||
        (a.vertical < b.vertical ? -1 : a.vertical > b.vertical ? 1 : a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0),
    );
}
