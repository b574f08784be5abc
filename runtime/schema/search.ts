/**
 * The search index of a vertical (`dist/data/search/<vertical>.json`) and the one tokenizer both
 * sides use: the build tokenizes content with it, the runtime tokenizes queries with it, so a word
 * is found exactly when it was indexed.
 *
 * Postings are kept per layer (the index layer is a node's title and summary), so the runtime can
 * score and quote only the layers a caller has unlocked without touching the others.
 */
import { Type, type Static } from "@sinclair/typebox";
import { NodeStatusSchema } from "./artifacts.ts";

/** Layers in posting order; a posting's layer is an index into this list. */
export const SEARCH_LAYERS = ["index", "logic", "directive", "skill", "action"] as const;
export type SearchLayer = (typeof SEARCH_LAYERS)[number];

export const SearchDocSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  trial: Type.Boolean(),
  status: NodeStatusSchema,
  /** Token count of each layer, in SEARCH_LAYERS order (BM25 length normalisation). */
  lengths: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 5, maxItems: 5 }),
  /** Plain-text sentences of each layer, in SEARCH_LAYERS order, for snippets. */
  passages: Type.Array(Type.Array(Type.String()), { minItems: 5, maxItems: 5 }),
});
export type SearchDoc = Static<typeof SearchDocSchema>;

export const SearchIndexSchema = Type.Object({
  vertical: Type.String(),
  layers: Type.Array(Type.String()),
  docs: Type.Array(SearchDocSchema),
  /** Mean token count of each layer over all docs. */
  avg_lengths: Type.Array(Type.Number({ minimum: 0 }), { minItems: 5, maxItems: 5 }),
  /**
   * term → flat triples `[doc, layer, tf, doc, layer, tf, …]`, sorted by doc then layer; plus the
   * term's inverse document frequency over the vertical's docs.
   */
  terms: Type.Record(Type.String(), Type.Object({ idf: Type.Number(), postings: Type.Array(Type.Integer({ minimum: 0 })) })),
});
export type SearchIndex = Static<typeof SearchIndexSchema>;

/** The search hit returned by GET /api/search and the `search` tool. */
export const SearchResultSchema = Type.Object({
  id: Type.String(),
  vertical: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  score: Type.Number(),
  snippet: Type.String({ description: "A sentence from the best-matching layer the caller has unlocked (the index layer: the summary)" }),
});
export type SearchResult = Static<typeof SearchResultSchema>;

export const SearchResponseSchema = Type.Object({ results: Type.Array(SearchResultSchema) });
export type SearchResponse = Static<typeof SearchResponseSchema>;

/** Words too common to rank on. */
const STOPWORDS = new Set(
  "a an and are as at be by can do does for from has have how i if in into is it its may must no not of on or so such than that the their then there these they this to under was what when where which who will with".split(" "),
);
const WORD_RE = /[\p{L}\p{N}]+/gu;

/**
 * Lower-cased, accent-folded words of at least two characters, minus stopwords, with a light
 * plural fold (`passengers` → `passenger`, `duties` → `duty`).
 * @example tokenizeForSearch("Delayed passengers' rights") // ["delayed", "passenger", "right"]
 */
export function tokenizeForSearch(text: string): string[] {
  const folded = text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
  const out: string[] = [];
  for (const match of folded.matchAll(WORD_RE)) {
    const word = match[0];
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    out.push(_foldPlural(word));
  }
  return out;
}

// --- Internal helpers ---

function _foldPlural(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us") && !word.endsWith("is")) return word.slice(0, -1);
  return word;
}
