/**
 * The project's documentation as pages of the site: README.md, docs/*.md and the node field
 * reference, rendered at build time with the unified pipeline of the browse pages and served at
 * `/docs/<page>` (the runtime never parses markdown). `/docs` itself stays the API reference,
 * since every problem's `type` points into it.
 *
 * Links between served pages become their `/docs/<page>` paths; a link to any other file of the
 * repository becomes its text, as the service does not serve its sources. Headings get GitHub's
 * anchors, so `endpoints.md#abuse-limits` works on GitHub and here alike.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import type { Element, RootContent as HastContent, Root as HastRoot } from "hast";
import type { RootContent as MdContent, Root as MdRoot } from "mdast";
import rehypeSanitize from "rehype-sanitize";
import rehypeStringify from "rehype-stringify";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified } from "unified";
import { createSlugger } from "../docs/slug.ts";
import { PACKAGE_ROOT } from "../package-root.ts";
import { type PageContext, renderPage } from "./render-pages.ts";

/** One served page: where its markdown lives (relative to the repository) and its name under /docs/. */
export interface DocPage {
  source: string;
  name: string;
}

/** The repository this build belongs to: the docs are the project's, whatever content folder is built. */
const REPO_ROOT = PACKAGE_ROOT;
/** Names that are not a docs/ file's own. */
const SPECIAL: ReadonlyArray<DocPage> = [
  { source: "README.md", name: "readme" },
  { source: "docs/README.md", name: "guides" },
  { source: "content/AUTHORING.md", name: "node-reference" },
];
/** The service at the address the docs give for a local start (`npm start`), with the path after it. */
const LOCAL_SERVICE_RE = /^https?:\/\/(?:127\.0\.0\.1|localhost|\[::1\]):8787(\/[^\s]*)?$/i;
export const DOC_NAME_RE = /^[a-z0-9][a-z0-9-]*$/;

/** Every page to serve, README and docs/ first. */
export function listDocPages(root = REPO_ROOT): DocPage[] {
  const docs = existsSync(join(root, "docs"))
    ? readdirSync(join(root, "docs"))
        .filter((f) => f.endsWith(".md") && f !== "README.md")
        .sort()
    : [];
  const pages = [...SPECIAL, ...docs.map((f) => ({ source: `docs/${f}`, name: f.slice(0, -3).toLowerCase() }))];
  return pages.filter((p) => DOC_NAME_RE.test(p.name) && existsSync(join(root, p.source)));
}

/** The files of every doc page, `docs/<name>.html` → HTML, for the browse site. */
export function renderDocPages(ctx: PageContext, root = REPO_ROOT): Map<string, string> {
  const pages = listDocPages(root);
  const bySource = new Map(pages.map((p) => [p.source, p.name]));
  const out = new Map<string, string>();
  for (const page of pages) {
    const markdown = readFileSync(join(root, page.source), "utf8");
    const title = _firstHeading(markdown) ?? page.name;
    const html = _render(markdown, (url) => _rewrite(url, page.source, bySource));
    const body = `<nav class="doc-pages" aria-label="Documentation">${pages
      .filter((p) => p.source.startsWith("docs/"))
      .map((p) => (p.name === page.name ? `<strong>${p.name}</strong>` : `<a href="/docs/${p.name}">${p.name}</a>`))
      .join(" · ")} · <a href="/docs">API reference</a></nav>\n<article class="doc">${html}</article>`;
    out.set(
      `docs/${page.name}.html`,
      renderPage(
        ctx,
        title,
        [["Docs", page.name === "guides" ? null : "/docs/guides"], ...(page.name === "guides" ? [] : [[title, null] as [string, null]])],
        body,
      ),
    );
  }
  return out;
}

// --- Internal helpers ---

function _render(markdown: string, rewrite: (url: string) => string | null): string {
  const processor = unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(() => (tree: MdRoot) => _rewriteLinks(tree, rewrite))
    .use(remarkRehype)
    .use(rehypeSanitize)
    // After sanitizing (which would prefix ids): anchors are the build's own, never the author's markup.
    .use(() => (tree: HastRoot) => _addHeadingIds(tree));
  return String(processor.use(rehypeStringify).processSync(markdown));
}

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

function _firstHeading(markdown: string): string | null {
  const line = /^#\s+(.+)$/m.exec(markdown)?.[1];
  return line ? line.replace(/[`*_]/g, "").trim() : null;
}
