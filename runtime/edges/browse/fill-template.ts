/**
 * Fills the templates the build wrote (search.html, error.html): each `<!--vkr:name-->` marker is
 * replaced by escaped text, so the runtime adds data to a page but never markup of its own
 * beyond the list of search hits.
 */
import type { ApiError } from "../../shared/errors.ts";
import { ERRORS } from "../../shared/errors.ts";
import { escapeHtml } from "../../shared/http/escape-html.ts";
import type { SearchResponse } from "../../shared/schema/search.ts";

/**
 * Replaces `<!--vkr:name-->` markers; values are escaped here, except those listed in `raw`.
 * Markers without a value become empty, or stay for a later fill with `keepOthers`.
 */
export function fillTemplate(
  template: string,
  values: Record<string, string>,
  raw: ReadonlySet<string> = new Set(),
  keepOthers = false,
): string {
  return template.replace(/<!--vkr:([\w:.-]+)-->/g, (marker, name: string) => {
    if (!Object.hasOwn(values, name)) return keepOthers ? marker : "";
    return raw.has(name) ? values[name]! : escapeHtml(values[name]!);
  });
}

export function fillErrorPage(template: string, error: ApiError, requestId: string): string {
  const definition = ERRORS[error.code] as { title: string; hint?: string };
  return fillTemplate(template, {
    title: definition.title,
    status: String(error.status),
    code: error.code,
    detail: error.options.detail ?? "",
    hint: definition.hint ?? "",
    request: requestId,
  });
}

/** `query.notice` is the runtime's own markup (a refused key's notice), inserted as is. */
export function fillSearchPage(
  template: string,
  query: { q: string; vertical: string | null; notice?: string },
  answer: Pick<SearchResponse, "match" | "results"> | null,
): string {
  let list = "";
  if (answer !== null) {
    const items = answer.results.map(
      (r) =>
        `<li><a href="/browse/${escapeHtml(r.vertical)}/${escapeHtml(r.id)}">${escapeHtml(r.title)}</a> <span class="badge">${escapeHtml(r.vertical)}</span><div class="snippet">${escapeHtml(r.snippet)}</div></li>`,
    );
    const count = `<p>${items.length} result${items.length === 1 ? "" : "s"}.</p>`;
    const poor =
      answer.match === "poor"
        ? '<p class="notice" role="status">No page answers this well: these results only share some words with it. Try other words, or check the verticals this service covers.</p>'
        : "";
    list = items.length ? `${poor}${count}<ol class="results">${items.join("")}</ol>` : "<p>Nothing matched. Try fewer or other words.</p>";
  }
  return fillTemplate(
    template,
    {
      query: query.q,
      results: list,
      notice: query.notice ?? "",
      ...(query.vertical ? { [`selected:${query.vertical}`]: " selected" } : {}),
    },
    new Set(["results", "notice", ...(query.vertical ? [`selected:${query.vertical}`] : [])]),
  );
}
