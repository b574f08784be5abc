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
  /** The two word stems each pair joins, in `pairs` order. */
  pairWords: Array<readonly [string, string]>;
}

/**
 * Words too common to rank on: function words, pronouns and the words questions are made of ("how
 * do I …", "can we …", "what happens if …"), plus the stubs of contractions (`don't` → `don`).
 * Not `us`, which names the United States as often as it is a pronoun.
 */
const STOPWORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be because been before being below between both but by can could " +
    "did do does doing done during each else ever every few for from further get gets getting got had has have having he her here " +
    "hers herself him himself his how i if in into is it its itself just me more most my myself no nor not of off on once only or other " +
    "ought our ours ourselves out over own same shall she should so some such than that the their theirs them themselves then there " +
    "these they this those through too under until up very was we were what whatever when where whether which while who whom whose why " +
    "will with within would you your yours yourself yourselves anything something someone anyone really please " +
    "don doesn didn isn aren wasn weren won wouldn shouldn couldn cannot ll ve re"
  ).split(" "),
);
const WORD_RE = /[\p{L}\p{N}]+/gu;
/** What may stand between two words that still make one term: spaces and hyphens only. */
const JOINER_RE = /^[\s\-\u2010\u2011]+$/u;
const BRITISH_IZE_RE = /^([a-z]{3,})is(e|es|ed|ing|ation|ations)$/;

/**
 * Words and joined pairs of a text.
 * @example searchTokens("Deep-fake labels") // { words: ["deep", "fake", "label"], pairs: ["deepfak", "fakelabel"], pairWords: [["deep", "fake"], ["fake", "label"]] }
 */
export function searchTokens(text: string): SearchTokens {
  const folded = text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
  const words: string[] = [];
  const pairs: string[] = [];
  const pairWords: Array<readonly [string, string]> = [];
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
    if (previous && JOINER_RE.test(folded.slice(previous.end, start))) {
      pairs.push(_stem(previous.stem + raw));
      pairWords.push([previous.stem, stem]);
    }
    previous = { stem, end: start + raw.length };
  }
  return { words, pairs, pairWords };
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
