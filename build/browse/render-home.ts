/** The human page of `GET /` (agents asking for JSON get the runtime's description instead). */
import type { ResolvedVertical } from "../../runtime/shared/schema/catalog.ts";
import { escapeHtml } from "./html-text.ts";
import { type PageContext, renderPage } from "./render-pages.ts";

export function renderHome(ctx: PageContext, verticals: ResolvedVertical[]): string {
  const live = verticals.filter((v) => v.status === "live");
  const body = `<h1>Vertical Knowledge Retrieval Service</h1>
<p>Structured, validated, cited knowledge for AI agents working in regulated fields. ${live.length} verticals are live: ${live.map((v) => `<a href="/browse/${escapeHtml(v.slug)}">${escapeHtml(v.title)}</a>`).join(", ")}.</p>
<ul>
<li><a href="/browse">Browse the knowledge graphs</a></li>
<li><a href="/docs">API reference</a> and the <a href="/openapi.json">OpenAPI description</a></li>
<li><a href="/llms.txt">llms.txt</a> and <a href="/llms-full.txt">llms-full.txt</a> for agents that read documentation</li>
<li>MCP endpoint <code>/mcp</code> (Streamable HTTP) for MCP clients, described in the <a href="/docs">API reference</a></li>
<li><a href="/api/status">Service status</a></li>
</ul>
<h2>For agents</h2>
<p>Ask this URL with <code>Accept: application/json</code> for a machine description. Get a trial key with <code>POST /api/trial</code> and send it as <code>X-Service-Key</code>. MCP clients connect to <code>/mcp</code>, e.g. <code>claude mcp add --transport http vkr &lt;base-url&gt;/mcp --header "X-Service-Key: &lt;key&gt;"</code>.</p>`;
  return renderPage(ctx, "Home", [["Home", null]], body);
}
