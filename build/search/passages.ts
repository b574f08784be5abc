/**
 * Snippet passages: a layer's markdown reduced to the plain sentences a search result may quote.
 * The markdown is read with remark (the build's own parser), so inline code keeps its text as
 * written (`is_ai_system`, not `isaisystem`), link text stays and code blocks go.
 *
 * Sentences end at `.`, `!` or `?` before a capital letter, never after an abbreviation or an
 * initial ("Art. 5", "No. 261/2004", "U.S.C. 3603", "e.g. The"), so a snippet neither breaks a
 * citation nor starts inside one. A sentence longer than a snippet is cut at a clause boundary (or a
 * space) outside any citation ("C-146/20", "42 U.S.C. 3603(b)", "Art. 7(1)(a)").
 */

import type { Root, RootContent } from "mdast";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";

/** Longest passage kept for a snippet, in characters. */
export const MAX_PASSAGE = 280;

const parser = unified().use(remarkParse).use(remarkGfm);

/** Words that end with a full stop without ending a sentence (lowercase, without the stop). */
const ABBREVIATIONS = new Set(
  "art arts no nos para paras subpara sec secs p pp v vs cf reg regs dir ch fig figs approx incl st mr mrs ms dr inc ltd co corp jr sr al ed eds op cit ibid rev vol vols pt cl sch ann ca resp".split(
    " ",
  ),
);
/** A candidate sentence end: the stop, closing quotes or brackets, then space. */
const END_RE = /[.!?]["'’”)\]]*\s+/g;
/** Citations a cut must not fall inside. */
const CITATION_RE =
  /\b(?:Arts?|Articles?|Recitals?|Annex(?:es)?|Nos?|paras?|Sec|Sections?|Rule|§{1,2})\.?\s*[\dIVXL]+[\w()\-–/.]*(?:\s*(?:and|to|–|-)\s*[\dIVXL]+[\w()\-–/.]*)?|\b\d+\s+(?:U\.S\.C\.|C\.F\.R\.|CFR|USC)\s*(?:§+\s*)?[\d.]+(?:\([a-z0-9]+\))*|\b[CT]-\d+\/\d+|\((?:EU|EC|EEC)\)\s*(?:No\.?\s*)?\d+\/\d+/g;

/** @example toPassages("Under Art. 5 no one may. See `is_ai_system`.") // ["Under Art. 5 no one may.", "See is_ai_system."] */
export function toPassages(markdown: string): string[] {
  const blocks: string[] = [];
  _blocks(parser.parse(markdown) as Root, blocks);
  return blocks.flatMap(splitSentences).map((s) => cutPassage(s));
}

/**
 * @example splitSentences("Art. 5 applies. The carrier pays (42 U.S.C. 3603(b)). Then stop.") // ["Art. 5 applies.", "The carrier pays (42 U.S.C. 3603(b)).", "Then stop."]
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const match of text.matchAll(END_RE)) {
    const end = match.index + match[0].length;
    if (!_startsSentence(text, end) || _isAbbreviation(text, match.index)) continue;
    out.push(text.slice(start, end).trim());
    start = end;
  }
  out.push(text.slice(start).trim());
  return out.filter((s) => s.length > 0);
}

/** The sentence, or its longest head up to `max` characters cut outside citations, with "…". */
export function cutPassage(sentence: string, max = MAX_PASSAGE): string {
  if (sentence.length <= max) return sentence;
  const spans = [...sentence.matchAll(CITATION_RE)].map((m) => [m.index, m.index + m[0].length] as const);
  const free = (i: number) => !spans.some(([a, b]) => i > a && i < b);
  const head = sentence.slice(0, max - 1);
  // A clause boundary in the second half first, then any space; the cut is after the punctuation.
  for (const boundary of [/[;:](?=\s)/g, /,(?=\s)/g, /\s[–—]\s/g, /\s/g]) {
    let cut = -1;
    for (const m of head.matchAll(boundary))
      if (m.index >= max / 2 && free(m.index)) cut = m.index + (m[0].trim() === "" || /^\s/.test(m[0]) ? 0 : 1);
    if (cut > 0) return `${sentence.slice(0, cut).replace(/[\s,;:–—]+$/, "")} …`;
  }
  return `${head.trimEnd()}…`;
}

// --- Internal helpers ---

/** Plain text of each leaf block (paragraph, heading, table row), code blocks left out. */
function _blocks(node: Root | RootContent, out: string[]): void {
  switch (node.type) {
    case "code":
    case "html":
    case "thematicBreak":
      return;
    case "paragraph":
    case "heading": {
      const text = _inline(node).replace(/\s+/g, " ").trim();
      if (text) out.push(text);
      return;
    }
    case "tableRow": {
      const text = node.children
        .map((cell) => _inline(cell).replace(/\s+/g, " ").trim())
        .filter(Boolean)
        .join("; ");
      if (text) out.push(text);
      return;
    }
  }
  if ("children" in node) for (const child of node.children) _blocks(child as RootContent, out);
}

function _inline(node: RootContent): string {
  if (node.type === "text" || node.type === "inlineCode") return node.value;
  if (node.type === "break") return " ";
  if (node.type === "html" || node.type === "image" || node.type === "footnoteReference") return "";
  return "children" in node ? (node.children as RootContent[]).map(_inline).join("") : "";
}

/** After a candidate end: a capital letter, or an opening quote or bracket before one. Never a digit. */
function _startsSentence(text: string, at: number): boolean {
  return /^["'‘“([]?\p{Lu}/u.test(text.slice(at, at + 2));
}

/** The word before the stop is an abbreviation, an initial (`U.`, `C.`), or dotted (`U.S.C.`, `e.g.`). */
function _isAbbreviation(text: string, stop: number): boolean {
  if (text[stop] !== ".") return false;
  const word = /(\S+)$/.exec(text.slice(0, stop))?.[1] ?? "";
  const bare = word.replace(/^["'‘“([]+/, "");
  if (/^\p{L}$/u.test(bare) || bare.includes(".")) return true;
  return ABBREVIATIONS.has(bare.toLowerCase());
}
