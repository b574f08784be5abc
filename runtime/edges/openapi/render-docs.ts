/**
 * The human API reference at /docs: Swagger UI (swagger-ui-dist, served from this service, no
 * CDN) rendering /openapi.json with a section per tag, a filter box, deep links, schemas with
 * example values and the markdown of every description. Its start-up script is a file
 * (/docs/assets/docs-init.js), not inline, so the page's CSP allows scripts from this origin only.
 * Without script, a plain reference rendered from the same document is shown instead.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { escapeHtml } from "../../shared/http/escape-html.ts";
import type { createOpenApiDocument } from "./document.ts";

type Doc = ReturnType<typeof createOpenApiDocument>;

export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'";

/** Swagger UI's start-up, served as /docs/assets/docs-init.js. */
export const DOCS_INIT_JS = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    filter: true,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
`;

/** The Swagger UI files /docs/assets/ serves, by name. */
export const DOCS_ASSETS = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "docs-init.js": "text/javascript; charset=utf-8",
} as const;
export type DocsAsset = keyof typeof DOCS_ASSETS;

/** Reads one asset: Swagger UI's from the installed swagger-ui-dist package, ours from memory. */
export function readDocsAsset(name: DocsAsset): string {
  if (name === "docs-init.js") return DOCS_INIT_JS;
  // Resolved at run time next to the server (the bundle keeps node_modules beside it anyway).
  const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return readFileSync(join(dir, name), "utf8");
}

export function renderDocsHtml(doc: Doc): string {
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op: op as Record<string, any> })),
  );
  const rows = ops
    .map(({ path, method, op }) => {
      const params = (op.parameters ?? [])
        .map(
          (p: any) =>
            `<li><code>${_e(p.name)}</code> (${p.in}${p.required ? ", required" : ""})${p.description ? ` — ${_text(p.description)}` : ""}</li>`,
        )
        .join("");
      const body = op.requestBody
        ? `<details><summary>Request body schema</summary><pre>${_e(JSON.stringify(op.requestBody.content["application/json"].schema, null, 2))}</pre></details>`
        : "";
      const responses = Object.entries(op.responses)
        .map(([s, r]: [string, any]) => `<li><b>${s}</b> ${_text(r.description)}</li>`)
        .join("");
      const desc = (op.description ?? "")
        .split("\n\n")
        .map((p: string) => `<p>${_text(p)}</p>`)
        .join("");
      return `<section id="${_e(op.operationId)}"><h2><span class="m">${method.toUpperCase()}</span> <code>${_e(path)}</code></h2><p><b>${_text(op.summary)}</b></p>${desc}${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ""}${body}<h3>Responses</h3><ul>${responses}</ul></section>`;
    })
    .join("\n");
  const errors = Object.entries(doc["x-error-codes"])
    .map(
      ([code, d]: [string, any]) =>
        `<tr id="problem-${_e(code)}"><td><code>${_e(code)}</code></td><td>${d.status}</td><td>${_e(d.title)}</td><td>${_text(d.hint ?? "")}</td></tr>`,
    )
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${_e(doc.info.title)} — API reference</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#1a1a1a}header.top{background:#1d2433;padding:.6rem 1.2rem}header.top a{color:#cfe0ff;margin-right:1rem;text-decoration:none}
.fallback{max-width:60rem;margin:2rem auto;padding:0 1rem}code,pre{font-family:ui-monospace,monospace}.fallback code{background:#f0f2f5;padding:0 .2rem;border-radius:3px}pre{background:#f5f5f5;padding:.75rem;overflow:auto}.fallback section{border-top:1px solid #ddd;padding-top:.5rem}.m{background:#234;color:#fff;padding:0 .4rem;border-radius:3px;font-size:.85em}table{border-collapse:collapse}td{border:1px solid #ddd;padding:.2rem .5rem}
h1.page-title{max-width:1460px;margin:1rem auto 0;padding:0 20px;font-size:1.1rem;font-weight:600;color:#3b4151}
#errors{max-width:1460px;margin:0 auto;padding:0 20px 2rem;overflow-x:auto}#errors table{width:100%;font-size:14px}#errors td{overflow-wrap:anywhere}
@media (max-width:600px){#errors{padding:0 8px 2rem}.swagger-ui .wrapper{padding:0 8px}.swagger-ui table.responses-table,.swagger-ui table.parameters{display:block;overflow-x:auto}}</style>
<script src="/docs/assets/swagger-ui-bundle.js" defer></script>
<script src="/docs/assets/docs-init.js" defer></script>
</head><body><header class="top"><a href="/">Home</a> <a href="/browse">Browse</a> <a href="/docs/guides">Guides</a> <a href="/openapi.json">openapi.json</a> <a href="/llms.txt">llms.txt</a> <a href="#errors">Error codes</a></header>
<h1 class="page-title">${_e(doc.info.title)} — API reference</h1>
<div id="swagger-ui"></div>
<noscript><div class="fallback"><h2>${_e(doc.info.title)} <small>v${_e(doc.info.version)}</small></h2>
<p>${_text(doc.info.description)} Machine-readable: <a href="/openapi.json">/openapi.json</a>.</p>
${rows}
</div></noscript>
<section id="errors"><h2>Error codes</h2><p>Every error is <code>application/problem+json</code> with one of these stable <code>code</code> values.</p><table><tr><th>code</th><th>status</th><th>title</th><th>hint</th></tr>${errors}</table></section>
</body></html>`;
}

// --- Internal helpers ---

function _e(value: unknown): string {
  return escapeHtml(String(value));
}

/** Escaped text whose `code spans` become <code>: descriptions use backticks and nothing else of markdown that matters here. */
function _text(value: unknown): string {
  return _e(value).replace(/`([^`]+)`/g, "<code>$1</code>");
}
