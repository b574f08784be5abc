/**
 * The human API reference at /docs: plain HTML rendered once from the OpenAPI description, no
 * client framework, no external assets.
 */
import type { createOpenApiDocument } from "./document.ts";

type Doc = ReturnType<typeof createOpenApiDocument>;

export function renderDocsHtml(doc: Doc): string {
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op: op as Record<string, any> })),
  );
  const rows = ops
    .map(({ path, method, op }) => {
      const params = (op.parameters ?? []).map((p: any) => `<li><code>${_e(p.name)}</code> (${p.in}${p.required ? ", required" : ""})${p.description ? ` — ${_e(p.description)}` : ""}</li>`).join("");
      const body = op.requestBody ? `<details><summary>Request body schema</summary><pre>${_e(JSON.stringify(op.requestBody.content["application/json"].schema, null, 2))}</pre></details>` : "";
      const responses = Object.entries(op.responses).map(([s, r]: [string, any]) => `<li><b>${s}</b> ${_e(r.description)}</li>`).join("");
      const desc = (op.description ?? "").split("\n\n").map((p: string) => `<p>${_e(p)}</p>`).join("");
      return `<section id="${_e(op.operationId)}"><h2><span class="m">${method.toUpperCase()}</span> <code>${_e(path)}</code></h2><p><b>${_e(op.summary)}</b></p>${desc}${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ""}${body}<h3>Responses</h3><ul>${responses}</ul></section>`;
    })
    .join("\n");
  const errors = Object.entries(doc["x-error-codes"])
    .map(([code, d]: [string, any]) => `<tr id="problem-${_e(code)}"><td><code>${_e(code)}</code></td><td>${d.status}</td><td>${_e(d.title)}</td><td>${_e(d.hint ?? "")}</td></tr>`)
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${_e(doc.info.title)} — API reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f5;padding:.75rem;overflow:auto}section{border-top:1px solid #ddd;padding-top:.5rem}.m{background:#234;color:#fff;padding:0 .4rem;border-radius:3px;font-size:.85em}table{border-collapse:collapse}td{border:1px solid #ddd;padding:.2rem .5rem}</style>
</head><body><h1>${_e(doc.info.title)} <small>v${_e(doc.info.version)}</small></h1>
<p>${_e(doc.info.description)} Machine-readable: <a href="/openapi.json">/openapi.json</a>.</p>
${rows}
<section><h2>Error codes</h2><table><tr><th>code</th><th>status</th><th>title</th><th>hint</th></tr>${errors}</table></section>
</body></html>`;
}

// --- Internal helpers ---

function _e(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
