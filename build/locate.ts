/**
 * Finds the line of a field inside YAML source. Only called when there is an issue to report,
 * so the (heavier) YAML Document with positions is built lazily, never for clean files.
 */
import { type Document, isMap, isNode, isScalar, LineCounter, parseDocument } from "yaml";

export type FieldPath = ReadonlyArray<string | number>;

/** Maps a field path to a 1-based line of the file; falls back to the nearest existing parent. */
export type LocateField = (path: FieldPath) => number;

/**
 * @param source YAML text
 * @param firstLine file line of the YAML's first line (2 for frontmatter after `---`)
 * @example createLocator("a:\n  b: 1\n", 1)(["a", "b"]) // 2
 */
export function createLocator(source: string, firstLine: number): LocateField {
  let parsed: { doc: Document; lines: LineCounter } | undefined;
  return (path) => {
    if (!parsed) {
      const lines = new LineCounter();
      parsed = { doc: parseDocument(source, { lineCounter: lines, uniqueKeys: false }), lines };
    }
    const { doc, lines } = parsed;
    for (let depth = path.length; depth > 0; depth--) {
      const offset = _offsetOf(doc, path.slice(0, depth));
      if (offset !== undefined) return lines.linePos(offset).line + firstLine - 1;
    }
    return firstLine;
  };
}

// --- Internal helpers ---

/** A map entry points at its key (the line an author looks for); a list item at the item. */
function _offsetOf(doc: Document, path: FieldPath): number | undefined {
  const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
  const last = path[path.length - 1];
  if (isMap(parent)) {
    for (const pair of parent.items) {
      if (isScalar(pair.key) && String(pair.key.value) === String(last) && pair.key.range) return pair.key.range[0];
    }
    return undefined;
  }
  const node = doc.getIn(path, true);
  return isNode(node) && node.range ? node.range[0] : undefined;
}
