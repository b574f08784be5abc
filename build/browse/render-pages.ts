/**
 * The browse site's pages as HTML strings: the page shell, the verticals list, a vertical's graph
 * page and a node page. No client framework and no script; styles are inline in the shell.
 */
import type { IndexGraph, NodeResponse } from "../../runtime/shared/schema/artifacts.ts";
import { LAYER_NAMES, type ResolvedVertical } from "../../runtime/shared/schema/catalog.ts";
import { escapeHtml } from "./html-text.ts";
import { renderGraphSvg } from "./layout-graph.ts";
import { renderRules } from "./render-gates.ts";
import { renderMarkdown } from "./render-markdown.ts";

export interface PageContext {
  apiVersion: string;
  buildId: string;
}

export function renderPage(ctx: PageContext, title: string, crumbs: Array<[string, string | null]>, body: string): string {
  const trail = crumbs
    .map(([label, href]) => (href ? `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>` : `<span>${escapeHtml(label)}</span>`))
    .join(" › ");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Vertical Knowledge Retrieval</title>
<style>${STYLE}</style></head>
<body><header><nav class="top"><a href="/">Home</a> <a href="/browse">Browse</a> <a href="/docs/guides">Guides</a> <a href="/docs">API docs</a> <a href="/llms.txt">llms.txt</a> <a href="/browse/key">Key</a>
<form class="find" method="get" action="/browse/search" role="search"><input name="q" type="search" maxlength="200" placeholder="Search the knowledge" aria-label="Search the knowledge"><button type="submit">Search</button></form></nav>
<nav class="crumbs" aria-label="breadcrumb">${trail}</nav></header>
<main>
<!--vkr:notice-->
${body}
</main>
<footer>API ${escapeHtml(ctx.apiVersion)} · build ${escapeHtml(ctx.buildId)}</footer>
</body></html>
`;
}

export function renderVerticalList(ctx: PageContext, verticals: ResolvedVertical[]): string {
  const rows = verticals.map((v) => {
    const name = v.status === "live" ? `<a href="/browse/${escapeHtml(v.slug)}">${escapeHtml(v.title)}</a>` : escapeHtml(v.title);
    return `<tr data-vertical="${escapeHtml(v.slug)}"><td>${name}</td><td class="slug"><code>${escapeHtml(v.slug)}</code></td><td class="status ${escapeHtml(v.status)}">${escapeHtml(v.status.replace("_", " "))}</td><td>${v.node_count}</td><td>${_accessWords(v)}</td></tr>`;
  });
  const body = `<h1>Verticals</h1>
<p>Structured, cited knowledge for AI agents, grouped into verticals. Each vertical is a graph of nodes; the index layer of a node (title, summary, where to go next) is free, the four content layers need a key on most verticals. Agents should use the <a href="/docs">HTTP API</a> or <a href="/llms.txt">llms.txt</a>.</p>
<table class="verticals"><thead><tr><th>Vertical</th><th class="slug">Slug</th><th>Status</th><th>Nodes</th><th>Access</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table>`;
  return renderPage(ctx, "Verticals", [["Browse", null]], body);
}

export function renderVerticalPage(ctx: PageContext, vertical: ResolvedVertical, index: IndexGraph): string {
  const href = (id: string) => `/browse/${vertical.slug}/${id}`;
  const rows = [...index.nodes]
    .sort((a, b) => a.order - b.order)
    .map(
      (n) =>
        `<tr><td>${n.order}</td><td><a href="${escapeHtml(href(n.id))}">${escapeHtml(n.title)}</a>${n.trial ? ' <span class="badge">trial</span>' : ""}</td><td>${escapeHtml(n.summary)}</td></tr>`,
    );
  const body = `<h1>${escapeHtml(index.title)}</h1>
<p class="summary">${escapeHtml(index.summary)}</p>
<p class="meta">${index.nodes.length} nodes · ${_accessWords(vertical)} · start at <a href="${escapeHtml(href(index.root))}">${escapeHtml(index.root)}</a>. Dashed outlines mark trial modules; arrows follow <code>next_nodes</code> forward, and ↩ on a box counts its links back to earlier nodes (its tooltip and its page name them). The picture scrolls on its own; the table below lists every node.</p>
<figure class="graph-box">${renderGraphSvg(index, href)}</figure>
<h2>Nodes</h2>
<table class="nodes"><thead><tr><th>#</th><th>Node</th><th>Summary</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table>`;
  return renderPage(
    ctx,
    index.title,
    [
      ["Browse", "/browse"],
      [index.title, null],
    ],
    body,
  );
}

/** One node page; `response` is the full or the locked artifact, so the page shows exactly what it holds. */
export function renderNodePage(ctx: PageContext, vertical: ResolvedVertical, response: NodeResponse): string {
  const node = response.node;
  const layers = LAYER_NAMES.map((name) => {
    const layer = node.layers[name];
    if (!layer) {
      return `<section class="layer locked" data-layer="${name}"><h2>${_title(name)} <span class="badge">locked</span></h2><p>About ${node.layer_tokens[name]} tokens. A key or payment token unlocks it (see below).</p></section>`;
    }
    const rules = name === "logic" && "rules" in layer ? renderRules(layer as NonNullable<typeof node.layers.logic>) : "";
    return `<section class="layer" data-layer="${name}"><h2>${_title(name)}</h2>${renderMarkdown(layer.text)}${rules}</section>`;
  });
  const next = response.next_nodes.map(
    (n) => `<li><a class="next" href="/browse/${escapeHtml(vertical.slug)}/${escapeHtml(n.id)}">${escapeHtml(n.title)}</a></li>`,
  );
  const sources = node.sources.map(
    (s) => `<li>${s.url ? `<a href="${escapeHtml(s.url)}" rel="noopener">${escapeHtml(s.title)}</a>` : escapeHtml(s.title)}</li>`,
  );
  const unlock = node.locked_layers.length
    ? `<section class="unlock"><h2>Unlock the content layers</h2><p>Have a key? <a href="/browse/key">Read with your key</a> in this browser.</p>${renderMarkdown(response.cta)}</section>`
    : "";
  const body = `<h1>${escapeHtml(node.title)}</h1>
<p class="summary">${escapeHtml(node.summary)}</p>
<p class="twin"><a href="/browse/${escapeHtml(vertical.slug)}/${escapeHtml(node.id)}.md" type="text/markdown">This page as markdown</a></p>
<dl class="meta"><dt>Node</dt><dd><code>${escapeHtml(node.id)}</code>${node.trial ? ' <span class="badge">trial module</span>' : ""}</dd><dt>Version</dt><dd><code>${escapeHtml(node.version)}</code></dd><dt>Status</dt><dd>${escapeHtml(node.status)}</dd><dt>Updated</dt><dd>${escapeHtml(node.updated.slice(0, 10))}</dd>${node.reviewed ? `<dt>Reviewed</dt><dd>${escapeHtml(node.reviewed)}</dd>` : ""}${node.review_by ? `<dt>Review by</dt><dd>${escapeHtml(node.review_by)}</dd>` : ""}</dl>
${layers.join("\n")}
<section class="next-nodes"><h2>Next nodes</h2>${next.length ? `<ul>${next.join("")}</ul>` : "<p>None: this is a leaf of the graph.</p>"}</section>
<section class="sources"><h2>Sources</h2><ul>${sources.join("")}</ul></section>
${unlock}`;
  return renderPage(
    ctx,
    node.title,
    [
      ["Browse", "/browse"],
      [vertical.title, `/browse/${vertical.slug}`],
      [node.title, null],
    ],
    body,
  );
}

// --- Internal helpers ---

function _title(layer: string): string {
  return layer[0]!.toUpperCase() + layer.slice(1);
}

function _accessWords(v: ResolvedVertical): string {
  if (v.fully_open) return "fully open";
  if (v.index_free) return "index free, layers with a key";
  return "key required";
}

const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1d2433;background:#fafbfc}
header{background:#1d2433;color:#fff;padding:.6rem 1.2rem}header a{color:#cfe0ff;margin-right:1rem;text-decoration:none}
nav.crumbs{font-size:.85rem;color:#aab}nav.crumbs span{color:#fff}
main{max-width:1200px;margin:0 auto;padding:1rem 1.2rem}footer{color:#778;font-size:.8rem;text-align:center;padding:1rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #e3e6eb;padding:.35rem .5rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}
@media (max-width:600px){main{padding:.6rem}th,td{padding:.3rem}table.verticals .slug{display:none}}
.status.live{color:#137333;font-weight:600}.badge{font-size:.72rem;background:#fff4ce;border:1px solid #e0c45c;border-radius:4px;padding:0 .3rem}
.graph-box{overflow:auto;background:#fff;border:1px solid #e3e6eb;border-radius:8px;margin:0;padding:.5rem}
svg.graph{display:block;margin:0 auto;flex:none}svg.graph rect.node{fill:#eef4ff;stroke:#3b6fd8;stroke-width:1.4}svg.graph rect.node.trial{fill:#fffbe8;stroke:#b58900;stroke-dasharray:5 3}
svg.graph rect.node.root{stroke-width:3}svg.graph rect.node.deprecated{fill:#eee;stroke:#999}
svg.graph a:hover rect.node{fill:#dbe7ff}svg.graph text{font-size:13px;fill:#1d2433}svg.graph .tag{font-size:11px;fill:#8a6d00}
svg.graph path.edge{fill:none;stroke:#8792a8;stroke-width:1.2}svg.graph .arrowhead{fill:#8792a8}
.layer{background:#fff;border:1px solid #e3e6eb;border-radius:8px;padding:.3rem 1rem;margin:1rem 0}.layer.locked{background:#f4f5f7;color:#556}
.rules{padding-left:1.2rem}.rule{margin:.8rem 0}.rule-id{font-family:monospace;background:#eef;padding:0 .3rem}
.gate-tree,.gate-tree ul{list-style:none;padding-left:1.2rem;border-left:2px solid #d5dbe6;margin:.2rem 0}.op{font-weight:700;color:#3b6fd8}
.question{color:#667}.citation{font-size:.85rem;color:#556}.when{font-weight:700}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem}dl.meta dt{color:#667}dl.meta dd{margin:0}
code{background:#f0f2f5;padding:0 .2rem;border-radius:3px}
nav.top{display:flex;flex-wrap:wrap;align-items:center;gap:.3rem 0}form.find{margin-left:auto;display:flex;gap:.3rem}form.find input{width:14rem;max-width:55vw}
form.search,form.key{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:1rem 0}form.search input{flex:1 1 14rem}form.key input{flex:1 1 18rem;font-family:monospace}
input,select,button{font:inherit;padding:.3rem .5rem;max-width:100%;min-width:0}form.search select{flex:1 1 10rem}ol.results{overflow-wrap:anywhere}ol.results li{margin:.6rem 0}.results .snippet{color:#445}.hint{color:#556}.twin{font-size:.85rem}
pre{background:#f0f2f5;border-radius:6px;padding:.6rem .8rem;overflow-x:auto;line-height:1.35}pre code{background:none;padding:0}
.layer table{display:block;overflow-x:auto;width:auto;max-width:100%}.layer{overflow-wrap:anywhere}
.doc{overflow-wrap:anywhere}.doc table{display:block;overflow-x:auto;width:auto;max-width:100%;overflow-wrap:normal}.doc td,.doc th{min-width:6rem}.doc td:first-child{min-width:9rem}
nav.doc-pages{font-size:.85rem;margin:.3rem 0 1rem;color:#667}table.nodes td:first-child{overflow-wrap:normal;white-space:nowrap}
.notice,.saved,.active{border-radius:6px;padding:.5rem .8rem;margin:.8rem 0}.notice{background:#fff4ce;border:1px solid #e0c45c}.saved{background:#e6f4ea;border:1px solid #81c995}.active{background:#eef4ff;border:1px solid #b6cdf5}
`;
