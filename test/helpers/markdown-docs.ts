/**
 * The README's and docs' markdown as the tests read it, parsed with the same remark the build uses:
 * the README's named code blocks (a `<!-- block: name -->` line right before a fence names it, so a
 * test runs the block by name wherever it moves), the links of a page, and its heading anchors.
 */
import { readFileSync } from "node:fs";
import type { Code, Root, RootContent } from "mdast";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { createSlugger } from "../../build/docs/slug.ts";

export interface NamedBlock {
  name: string | null;
  lang: string | null;
  code: string;
  line: number;
}

const parser = unified().use(remarkParse).use(remarkGfm);
const MARKER_RE = /^<!--\s*block:\s*([\w-]+)\s*-->$/;

export function parseMarkdown(text: string): Root {
  return parser.parse(text) as Root;
}

/** Every fenced block of a markdown file, with the name its marker gives (null without one). */
export function codeBlocks(file = "README.md"): NamedBlock[] {
  const tree = parseMarkdown(readFileSync(file, "utf8"));
  const out: NamedBlock[] = [];
  let pending: string | null = null;
  for (const node of tree.children) {
    if (node.type === "html") {
      pending = MARKER_RE.exec(node.value.trim())?.[1] ?? null;
      continue;
    }
    if (node.type === "code")
      out.push({ name: pending, lang: node.lang ?? null, code: (node as Code).value, line: node.position?.start.line ?? 0 });
    pending = null;
  }
  return out;
}

/** The README block a test runs, by its marker's name; fails loudly when it is gone. */
export function readmeBlock(name: string): string {
  const block = codeBlocks().find((b) => b.name === name);
  if (!block) throw new Error(`README.md has no block marked <!-- block: ${name} -->`);
  return block.code;
}

/** Every link and link definition target of a page, with its line. */
export function markdownLinks(text: string): Array<{ url: string; line: number }> {
  const out: Array<{ url: string; line: number }> = [];
  const walk = (node: Root | RootContent) => {
    if ((node.type === "link" || node.type === "definition") && "url" in node)
      out.push({ url: node.url, line: node.position?.start.line ?? 0 });
    if ("children" in node) for (const child of node.children) walk(child);
  };
  walk(parseMarkdown(text));
  return out;
}

/** The anchors of a page's headings, as GitHub and the served pages write them. */
export function headingAnchors(text: string): Set<string> {
  const slug = createSlugger();
  const anchors = new Set<string>();
  const textOf = (node: RootContent): string =>
    "value" in node && typeof node.value === "string" ? node.value : "children" in node ? node.children.map(textOf).join("") : "";
  for (const node of parseMarkdown(text).children) if (node.type === "heading") anchors.add(slug(node.children.map(textOf).join("")));
  return anchors;
}
