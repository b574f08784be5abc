/**
 * The search index of a vertical (`dist/data/search/<vertical>.json`), tokenized with
 * runtime/shared/tokenize.ts.
 *
 * Postings are kept per field (title, summary, then the four content layers), so the runtime can
 * weigh fields (BM25F) and score and quote only the layers a caller has unlocked. Inverse document
 * frequencies and mean field lengths are over the whole build, not one vertical, so scores from
 * different verticals compare: a word common in one vertical is not rare because another lacks it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { NodeStatusSchema } from "./artifacts.ts";
import { CredentialProblemSchema } from "./unlock.ts";

/** Layers a caller unlocks, in snippet order: the index layer (title, summary) is readable by all who see the node. */
export const SEARCH_LAYERS = ["index", "logic", "directive", "skill", "action"] as const;
export type SearchLayer = (typeof SEARCH_LAYERS)[number];

/**
 * Fields in posting order; a posting's field is an index into this list. `questions` are the
 * questions a node declares it answers (frontmatter `questions:`), written the way people ask.
 */
export const SEARCH_FIELDS = ["title", "questions", "summary", "logic", "directive", "skill", "action"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
/** The layer (index into SEARCH_LAYERS) each field belongs to. */
export const SEARCH_FIELD_LAYER: readonly number[] = [0, 0, 0, 1, 2, 3, 4];
/**
 * A search whose first result scores below this (0–1) answers `match: "poor"`. Calibrated on
 * test/people/search-calibration.json (questions the content answers and questions it does not,
 * many next to a field it covers): the precision of "good" and the share of unanswered questions
 * not called good are measured by test/people/search-calibration.e2e.test.ts.
 */
export const GOOD_MATCH_SCORE = 0.45;

export const SearchDocSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  trial: Type.Boolean(),
  status: NodeStatusSchema,
  /** Word count of each field, in SEARCH_FIELDS order (BM25F length normalisation). */
  lengths: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 7, maxItems: 7 }),
  /** Plain-text sentences of each layer, in SEARCH_LAYERS order, for snippets. */
  passages: Type.Array(Type.Array(Type.String()), { minItems: 5, maxItems: 5 }),
});
export type SearchDoc = Static<typeof SearchDocSchema>;

export const SearchIndexSchema = Type.Object({
  vertical: Type.String(),
  fields: Type.Array(Type.String()),
  docs: Type.Array(SearchDocSchema),
  /** Mean word count of each field over every doc of the build. */
  avg_lengths: Type.Array(Type.Number({ minimum: 0 }), { minItems: 7, maxItems: 7 }),
  /** Documents in the whole build: the inverse document frequency of a word no node uses. */
  doc_count: Type.Integer({ minimum: 0 }),
  /**
   * term → flat triples `[doc, field, tf, doc, field, tf, …]`, sorted by doc then field; plus the
   * term's inverse document frequency over every doc of the build.
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
  score: Type.Number({
    minimum: 0,
    maximum: 1,
    description: `How well the node answers the query, 0–1, and the order of the results (highest first): the share of the query's weight the node holds in its title, questions and summary (rare words weigh more, a word no node uses as much as a word one node uses; a mention in a body layer counts little), times the node's BM25F relevance relative to the best-ranked node of this search. Comparable across queries for the first result: ${GOOD_MATCH_SCORE} or more is a good match.`,
  }),
  snippet: Type.String({
    description:
      "A sentence from the best-matching layer the caller has unlocked (the index layer: the summary), cut at sentence boundaries, never inside a citation",
  }),
});
export type SearchResult = Static<typeof SearchResultSchema>;

export const SearchMatchSchema = Type.Union([Type.Literal("good"), Type.Literal("poor"), Type.Literal("none")], {
  description: `"good": the first result scores ${GOOD_MATCH_SCORE} or more, so it (or one of the next two) answers the question; "poor": there are results, but the first does not cover the query well, often because the query names something the content does not cover (treat them as related at best, read a summary before relying on one, and do not answer from them as if they did); "none": nothing matched at all. On "poor" and "none", a question the service does not cover yet can be recorded with the free demand signal (POST /api/interest).`,
});
export type SearchMatch = Static<typeof SearchMatchSchema>;

export const SearchResponseSchema = Type.Object({
  /** Set when the presented key was refused: the search ran as for a caller without a key. */
  credential_problem: Type.Optional(CredentialProblemSchema),
  match: SearchMatchSchema,
  results: Type.Array(SearchResultSchema),
});
export type SearchResponse = Static<typeof SearchResponseSchema>;
