/**
 * Heading anchors as GitHub writes them, so a link like `endpoints.md#mcp-post-mcp` works on
 * GitHub, on the pages the service serves (`/docs/<page>`) and in the link test alike: lowercase,
 * punctuation dropped (hyphens and underscores kept), each space a hyphen, and a repeated heading
 * numbered `-1`, `-2`, … in document order.
 */

const DROP_RE = /[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu;

/** Anchor of one heading text, ignoring repeats. @example headingSlug("MCP (`POST /mcp`)") // "mcp-post-mcp" */
export function headingSlug(text: string): string {
  return text.toLowerCase().replace(DROP_RE, "").replace(/ /g, "-");
}

/** Anchors of a document's headings in order, numbering repeats as GitHub does (github-slugger's loop). */
export function createSlugger(): (text: string) => string {
  const occurrences = new Map<string, number>();
  return (text) => {
    const base = headingSlug(text);
    let slug = base;
    while (occurrences.has(slug)) {
      const n = occurrences.get(base)! + 1;
      occurrences.set(base, n);
      slug = `${base}-${n}`;
    }
    occurrences.set(slug, 0);
    return slug;
  };
}
