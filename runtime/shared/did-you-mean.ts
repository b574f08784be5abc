/**
 * "Did you mean": the closest candidate by edit distance, if close enough. Used for what people
 * type: CLI commands and flags, CLI values (verticals, key ids), content references in the build,
 * and the vertical and node names of API requests.
 */

/** Candidates whose length differs by more than this share of the word's cannot be close; they are skipped unmeasured. */
const MAX_WRONG_SHARE = 1 / 3;

/** @example suggestClosest("lable", ["label", "json"]) // "label" */
export function suggestClosest(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  // A third of the word may be wrong (typos, swapped letters); a prefix also counts ("--dist" → "--dist-dir").
  const allowed = Math.max(1, Math.floor(word.length * MAX_WRONG_SHARE));
  let best: { name: string; distance: number } | undefined;
  let prefixed: string | undefined;
  for (const name of candidates) {
    if (prefixed === undefined && word.length >= 3 && name.startsWith(lower)) prefixed = name;
    // Cheap bound first: an error path must not cost a request time per node of a large vertical.
    if (Math.abs(name.length - word.length) > allowed) continue;
    const distance = levenshtein(lower, name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (best && best.distance <= allowed) return best.name;
  return prefixed;
}

/**
 * The sentence to append to an "unknown name" message, or "".
 * @example didYouMean("travle", ["travel", "traversal"]) // ' Did you mean "travel"?'
 */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const close = word.length <= 100 ? suggestClosest(word, candidates) : undefined;
  return close === undefined ? "" : ` Did you mean "${close}"?`;
}

/** Edit distance (insert, delete, substitute; a swap of neighbours counts once). */
export function levenshtein(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
