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
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_ROOT } from "../package-root.ts";
import { type DocsCache, rendererCode, withDocsCache } from "./docs-cache.ts";
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

/**
 * The cache of this checkout (docs-cache.ts): `.cache/docs-html/` in the repository. The code
 * digest covers what renders a page: from the sources, doc-markdown.ts, the slugger and the
 * installed packages (package-lock.json); in a bundle, the file this module was bundled into,
 * which names the renderer's chunk by the hash of its content.
 */
export function defaultDocsCache(): DocsCache {
  const self = fileURLToPath(import.meta.url);
  const code = self.endsWith(".ts")
    ? [
        fileURLToPath(new URL("./doc-markdown.ts", import.meta.url)),
        fileURLToPath(new URL("../docs/slug.ts", import.meta.url)),
        join(PACKAGE_ROOT, "package-lock.json"),
      ]
    : [self];
  return { dir: join(PACKAGE_ROOT, ".cache", "docs-html"), code: rendererCode(code) };
}

/** The files of every doc page, `docs/<name>.html` → HTML, for the browse site; `cache: null` renders every page. */
export async function renderDocPages(
  ctx: PageContext,
  root = REPO_ROOT,
  cache: DocsCache | null = defaultDocsCache(),
): Promise<Map<string, string>> {
  const pages = listDocPages(root);
  const bySource = new Map(pages.map((p) => [p.source, p.name]));
  const sources = pages.map((page) => {
    const markdown = readFileSync(join(root, page.source), "utf8");
    return { page, markdown, inputs: JSON.stringify([page.source, markdown, [...bySource]]) };
  });
  const articles = await withDocsCache(cache, sources, async ({ page, markdown }) => {
    const { renderDocMarkdown } = await import("./doc-markdown.ts");
    return renderDocMarkdown(markdown, page.source, bySource);
  });
  const out = new Map<string, string>();
  sources.forEach(({ page, markdown }, i) => {
    const title = _firstHeading(markdown) ?? page.name;
    const html = articles[i];
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
  });
  return out;
}

// --- Internal helpers ---

function _firstHeading(markdown: string): string | null {
  const line = /^#\s+(.+)$/m.exec(markdown)?.[1];
  return line ? line.replace(/[`*_]/g, "").trim() : null;
}
