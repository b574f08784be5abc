/**
 * The browse site's interactive pages, rendered at build time like the rest: the key form, and
 * the templates the runtime fills for search results and error pages. Every page carries a
 * `<!--vkr:notice-->` marker (where a refused key's notice goes); the key page names the active
 * key at `<!--vkr:active-->` and confirms a save at `<!--vkr:saved-->`. Templates carry
 * `<!--vkr:name-->` markers; the runtime replaces each with escaped text (or with the list of
 * results it builds), so it never renders content or styling itself.
 */
import type { ResolvedVertical } from "../../runtime/shared/schema/catalog.ts";
import { escapeHtml } from "./html-text.ts";
import { type PageContext, renderPage } from "./render-pages.ts";

export function renderKeyPage(ctx: PageContext): string {
  const body = `<h1>Read with your key</h1>
<!--vkr:saved-->
<!--vkr:active-->
<p>Paste a membership key (<code>svc_live_…</code>) or a trial key (<code>svc_trial_…</code>) once. It is kept in a cookie that only this site can read (HttpOnly, SameSite=Strict, Secure over https); it never appears in a URL. Pages then show the layers and gate trees your key unlocks. Each node page you open with a key counts as one retrieval, exactly like <code>GET /api/demo</code>.</p>
<form class="key" method="post" action="/browse/key">
<label for="key">Service key</label>
<input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required minlength="10" maxlength="200" placeholder="svc_trial_…">
<button type="submit">Use this key</button>
</form>
<h2>Stop using the key</h2>
<form class="logout" method="post" action="/browse/logout"><button type="submit">Log out</button></form>
<p class="note">No key yet? <code>POST /api/trial</code> with <code>{"agent_id": "…"}</code> gives a 24-hour trial key (see the <a href="/docs">API reference</a>).</p>`;
  return renderPage(
    ctx,
    "Your key",
    [
      ["Browse", "/browse"],
      ["Your key", null],
    ],
    body,
  );
}

export function renderSearchTemplate(ctx: PageContext, verticals: ResolvedVertical[]): string {
  const options = verticals
    .filter((v) => v.status === "live")
    .map((v) => `<option value="${escapeHtml(v.slug)}"<!--vkr:selected:${escapeHtml(v.slug)}-->>${escapeHtml(v.title)}</option>`)
    .join("");
  const body = `<h1>Search</h1>
<form class="search" method="get" action="/browse/search" role="search">
<input name="q" type="search" value="<!--vkr:query-->" maxlength="200" required aria-label="Search terms">
<select name="vertical" aria-label="Vertical"><option value="">All verticals</option>${options}</select>
<button type="submit">Search</button>
</form>
<!--vkr:results-->`;
  return renderPage(
    ctx,
    "Search",
    [
      ["Browse", "/browse"],
      ["Search", null],
    ],
    body,
  );
}

export function renderErrorTemplate(ctx: PageContext): string {
  const body = `<h1><!--vkr:title--></h1>
<p class="error-status">HTTP <!--vkr:status--> · <code><!--vkr:code--></code></p>
<p><!--vkr:detail--></p>
<p class="hint"><!--vkr:hint--></p>
<p>Go back to <a href="/browse">the verticals</a>, <a href="/browse/key">use a key</a>, or read the <a href="/docs">API reference</a>. Request id <code><!--vkr:request--></code>.</p>`;
  return renderPage(
    ctx,
    "Error",
    [
      ["Browse", "/browse"],
      ["Error", null],
    ],
    body,
  );
}
