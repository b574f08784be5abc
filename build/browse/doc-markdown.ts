/**
 * One doc page's markdown to HTML (remark → rehype, sanitized, GitHub heading anchors), with its
 * links rewritten for the site. Everything that decides a cached page's bytes lives here and in
 * `../docs/slug.ts`: render-docs.ts keys its cache by this code (docs-cache.ts), and imports it
 * only on a miss, so a build whose pages are all cached never loads the markdown pipeline.
 */
import { posix } from "node:path";
import type { Element, RootContent as HastContent, Root as HastRoot } from "hast";
import type { RootContent as MdContent, Root as MdRoot } from "mdast";
import rehypeSanitize from "rehype-sanitize";
import rehypeStringify from "rehype-stringify";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified } from "unified";
import { createSlugger } from "../docs/slug.ts";

/** The service at the address the docs give for a local start (`npm start`), with the path after it. */
const LOCAL_SERVICE_RE = /^https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):8787(\/[^\s]*)?$/i;

/**
 * The article HTML of the page at `from` (a path relative to the repository); `bySource` maps the
 * served pages' sources to their names, for the links between them.
 * @example renderDocMarkdown("# Hi\n[x](docs/a.md)", "README.md", new Map([["docs/a.md", "a"]]))
 */
export function renderDocMarkdown(markdown: string, from: string, bySource: ReadonlyMap<string, string>): string {
  const processor = unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(() => (tree: MdRoot) => _rewriteLinks(tree, (url) => _rewrite(url, from, bySource)))
    .use(remarkRehype)
    .use(rehypeSanitize)
    // After sanitizing (which would prefix ids): anchors are the build's own, never the author's markup.
    .use(() => (tree: HastRoot) => _addHeadingIds(tree));
  return String(processor.use(rehypeStringify).processSync(markdown));
}

// --- Internal helpers ---

/** Links to served pages point at them; links to other repository files become their text. */
function _rewriteLinks(tree: MdRoot, rewrite: (url: string) => string | null): void {
  const walk = (parent: MdRoot | MdContent) => {
    if (!("children" in parent)) return;
    parent.children = parent.children.flatMap((node: MdContent): MdContent[] => {
      walk(node);
      if (node.type !== "link") return [node];
      const url = rewrite(node.url);
      if (url === null) return node.children as MdContent[];
      node.url = url;
      return [node];
    }) as typeof parent.children;
  };
  walk(tree);
}

function _rewrite(url: string, from: string, bySource: ReadonlyMap<string, string>): string | null {
  // The markdown links the service at its documented local address (for readers on GitHub); served,
  // the same link stays on whatever host and port the page came from.
  const own = LOCAL_SERVICE_RE.exec(url);
  if (own) return own[1] || "/";
  if (/^(?:[a-z][a-z0-9+.-]*:|\/\/|\/)/i.test(url)) return url;
  const [path = "", fragment] = url.split("#");
  const hash = fragment ? `#${fragment}` : "";
  if (path === "") return hash || url;
  const target = posix.normalize(posix.join(posix.dirname(from), path));
  const name = bySource.get(target);
  return name ? `/docs/${name}${hash}` : null;
}

function _addHeadingIds(tree: HastRoot): void {
  const slug = createSlugger();
  const textOf = (node: HastContent): string =>
    node.type === "text" ? node.value : "children" in node ? node.children.map((c) => textOf(c as HastContent)).join("") : "";
  const visit = (node: HastRoot | HastContent) => {
    if (node.type === "element" && /^h[1-6]$/.test(node.tagName))
      (node as Element).properties = {
        ...(node as Element).properties,
        id: slug(node.children.map((c) => textOf(c as HastContent)).join("")),
      };
    if ("children" in node) for (const child of node.children) visit(child as HastContent);
  };
  visit(tree);
}
