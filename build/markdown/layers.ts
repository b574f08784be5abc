/**
 * Splits a node body into its H2 sections with unified + remark-parse. Headings are found on the
 * syntax tree (so `## x` inside a code fence is not a heading), but each section keeps its exact
 * markdown source: the layer text an agent receives is what the author wrote.
 */

import type { Heading, Root } from "mdast";
import remarkParse from "remark-parse";
import { unified } from "unified";

export interface BodySection {
  /** Heading text as written, e.g. `Logic`. */
  heading: string;
  /** 1-based line of the heading in the file. */
  line: number;
  /** Markdown source between this heading and the next H2, trimmed. */
  text: string;
}

export interface SplitBody {
  /** Non-blank text before the first H2, if any (it belongs to no layer). */
  preamble?: { line: number; text: string };
  sections: BodySection[];
}

const parser = unified().use(remarkParse);

/**
 * @param body markdown after the frontmatter
 * @param firstLine file line of the body's first line
 * @example splitBody("## Logic\nx\n## Directive\ny", 1).sections.map((s) => s.heading) // ["Logic", "Directive"]
 */
export function splitBody(body: string, firstLine: number): SplitBody {
  const tree = parser.parse(body) as Root;
  const headings = tree.children.flatMap((node) =>
    node.type === "heading" && node.depth === 2 && node.position ? [{ node, pos: node.position }] : [],
  );
  const result: SplitBody = { sections: [] };
  const firstStart = headings[0]?.pos.start.offset ?? body.length;
  const preamble = body.slice(0, firstStart).trim();
  if (preamble) {
    const lead = body.slice(0, firstStart).search(/\S/);
    result.preamble = { line: firstLine + _countNewlines(body, lead), text: preamble };
  }
  headings.forEach(({ node, pos }, i) => {
    const end = headings[i + 1]?.pos.start.offset ?? body.length;
    result.sections.push({
      heading: _headingText(body, node),
      line: pos.start.line + firstLine - 1,
      text: body.slice(pos.end.offset ?? end, end).trim(),
    });
  });
  return result;
}

// --- Internal helpers ---

/** The heading's inline source (`Logic` of `## Logic ##`), without pulling in another mdast util. */
function _headingText(body: string, node: Heading): string {
  const first = node.children[0]?.position?.start.offset;
  const last = node.children[node.children.length - 1]?.position?.end.offset;
  return first === undefined || last === undefined ? "" : body.slice(first, last).trim();
}

function _countNewlines(text: string, end: number): number {
  let n = 0;
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
