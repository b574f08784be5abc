/**
 * How the SQLite store packs counters into rows. A counter names its row itself
 * (`CounterWindow.row`, a prefix of its key): every quota window of one owner (a key, or an
 * account's pool) shares the row `q:{<tag>}:<owner>` (metering/windows.ts), so a metered request
 * writes one row instead of one per window. A counter without a row is a row of its own.
 *
 * A row's cells are stored as JSON `[[suffix, n, expiresAt], …]`, the suffix being the counter key
 * without the row's name. Arrays, not an object: suffixes come from keys that may hold request data,
 * and `__proto__` is a valid one.
 */

export interface Cell {
  n: number;
  expiresAt: number;
}

/**
 * The row of a counter written by the one-row-per-counter layout, which kept no row names: the
 * quota keys of that time (`q:{<tag>}:<owner>:<window…>`) are grouped by their shape. Only the
 * layout upgrade reads it; live counters declare their row.
 */
export function legacyRowOf(key: string): string {
  if (!key.startsWith("q:{")) return key;
  const tagEnd = key.indexOf("}:", 3);
  if (tagEnd === -1) return key;
  const ownerEnd = key.indexOf(":", tagEnd + 2);
  return ownerEnd === -1 ? key : key.slice(0, ownerEnd);
}

export function decodeCells(row: string, text: string): Map<string, Cell> {
  const cells = new Map<string, Cell>();
  for (const [suffix, n, expiresAt] of JSON.parse(text) as Array<[string, number, number]>) cells.set(row + suffix, { n, expiresAt });
  return cells;
}

/**
 * The row's text and its latest expiry (null when no cell is left). Cells that expired before
 * `forgetBefore` are left out and deleted from `cells` too, so a row, stored or cached, only ever
 * holds its owner's current windows and a few old ones.
 */
export function encodeCells(row: string, cells: Map<string, Cell>, forgetBefore: number): { text: string; expiresAt: number } | null {
  // The JSON of `[[suffix, n, expiresAt], …]` written directly: a batch of keys in turn encodes one
  // row per request, and building the arrays for JSON.stringify was most of that. Counts and
  // times are finite integers, whose JSON is their decimal string.
  let text = "";
  let expiresAt = 0;
  for (const [key, c] of cells) {
    if (c.expiresAt <= forgetBefore) {
      cells.delete(key);
      continue;
    }
    text += `${text === "" ? "[[" : ",["}${JSON.stringify(key.slice(row.length))},${c.n},${c.expiresAt}]`;
    if (c.expiresAt > expiresAt) expiresAt = c.expiresAt;
  }
  return text === "" ? null : { text: `${text}]`, expiresAt };
}
