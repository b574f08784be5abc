/** "Did you mean" for command and flag names: the closest candidate by edit distance, if close enough. */

/** @example suggestClosest("lable", ["label", "json"]) // "label" */
export function suggestClosest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = levenshtein(word.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  // A third of the word may be wrong (typos, swapped letters); a prefix also counts ("--dist" → "--dist-dir").
  if (best && best.distance <= Math.max(1, Math.floor(word.length / 3))) return best.name;
  return candidates.find((name) => word.length >= 3 && name.startsWith(word.toLowerCase()));
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
