/**
 * The one tokenizer both sides use: the build indexes content with it, the runtime parses queries
 * with it, so a word is found exactly when it was indexed.
 *
 * Words are case- and accent-folded, British -ise spellings folded to -ize, and Porter-stemmed
 * (`passengers` → `passeng`, `delayed` → `delai`). Two adjacent words also make one joined term, so
 * "deep fake", "deep-fake" and "deepfake" meet at `deepfak`, and a phrase in the query earns the
 * phrase's (rarer, so higher-scoring) term.
 */
import { stemmer } from "stemmer";

export interface SearchTokens {
  /** Stemmed words, in order; their count is the text's length for BM25. */
  words: string[];
  /** Joined stems of adjacent words (no stopword or punctuation between them but a hyphen). */
  pairs: string[];
}

/** Words too common to rank on. */
const STOPWORDS = new Set(
  "a an and are as at be by can do does for from has have how i if in into is it its may must no not of on or so such than that the their then there these they this to under was what when where which who will with".split(" "),
);
const WORD_RE = /[\p{L}\p{N}]+/gu;
/** What may stand between two words that still make one term: spaces and hyphens only. */
const JOINER_RE = /^[\s\-\u2010\u2011]+$/u;
const BRITISH_IZE_RE = /^([a-z]{3,})is(e|es|ed|ing|ation|ations)$/;

/**
 * Words and joined pairs of a text.
 * @example searchTokens("Deep-fake labels") // { words: ["deep", "fake", "label"], pairs: ["deepfak", "fakelabel"] }
 */
export function searchTokens(text: string): SearchTokens {
  const folded = text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
  const words: string[] = [];
  const pairs: string[] = [];
  let previous: { stem: string; end: number } | null = null;
  for (const match of folded.matchAll(WORD_RE)) {
    const raw = match[0];
    const start = match.index;
    if (raw.length < 2 || STOPWORDS.has(raw)) {
      previous = null;
      continue;
    }
    const stem = _stem(raw);
    words.push(stem);
    // The first word's stem, so "delayed passengers" and "delay passenger" join alike, while
    // "deep fakes" still stems to the word "deepfakes".
    if (previous && JOINER_RE.test(folded.slice(previous.end, start))) pairs.push(_stem(previous.stem + raw));
    previous = { stem, end: start + raw.length };
  }
  return { words, pairs };
}

/**
 * Every term of a text: its words, then its pairs.
 * @example tokenizeForSearch("Delayed passengers' rights") // ["delai", "passeng", "right", "delaipasseng"]
 */
export function tokenizeForSearch(text: string): string[] {
  const { words, pairs } = searchTokens(text);
  return [...words, ...pairs];
}

// --- Internal helpers ---

function _stem(word: string): string {
  return stemmer(word.replace(BRITISH_IZE_RE, "$1iz$2"));
}
