/**
 * The browse site and its agent-facing siblings, all served from files the build wrote:
 * `/browse`, `/browse/:vertical` (graph picture), `/browse/:vertical/:node` (locked or full
 * variant after the access check, `.md` twin with the same layers), `/browse/key` (the key form;
 * POST sets the key cookie, POST /browse/logout clears it), `/browse/search`, `/llms.txt`,
 * `/llms-full.txt`, `/docs/<page>` (the project's guides), and `GET /` (HTML page or JSON
 * description by `Accept`). The runtime only
 * picks a file or fills a template; it never renders content. Browsers (`Accept: text/html`)
 * get errors as HTML pages; everyone else gets problem+json.
 */

import { Type } from "@sinclair/typebox";
import { getRouterParam, type H3Event } from "h3";
import { resolveKey } from "../../domain/access/credentials.ts";
import { decideRead, describeKeyScope, orRefuse, toCredentialProblem } from "../../domain/access/decide-read.ts";
import { planRead } from "../../domain/access/read-session.ts";
import { unknownNode } from "../../domain/access/unknown-names.ts";
import { meterRead } from "../../domain/metering/meter-read.ts";
import { searchNodes } from "../../domain/search/search-nodes.ts";
import { apiError, isApiError } from "../../shared/errors.ts";
import { readRawText } from "../../shared/http/body.ts";
import { requestContext } from "../../shared/http/context.ts";
import { escapeHtml } from "../../shared/http/escape-html.ts";
import { isHeadRequest } from "../../shared/http/head.ts";
import { CREDENTIAL_VARY } from "../../shared/http/headers.ts";
import { readSingleParam } from "../../shared/http/query.ts";
import { sendBytes, sendJson } from "../../shared/http/respond.ts";
import { ServiceDescriptionSchema } from "../../shared/schema/service-description.ts";
import type { CredentialProblem } from "../../shared/schema/unlock.ts";
import { describeService, prefersJson } from "../browse/describe-service.ts";
import { fillErrorPage, fillSearchPage, fillTemplate } from "../browse/fill-template.ts";
import { assertSameOrigin, isSecureSite, keyCookieHeader } from "../browse/key-cookie.ts";
import {
  credentialNoticeHtml,
  credentialNoticeMarkdown,
  type PageReader,
  pageWarningHeaders,
  readPageReader,
  withCookieRefusal,
} from "../browse/page-reader.ts";
import { type BrowseSite, createBrowseSite } from "../browse/read-site.ts";
import type { EdgeDeps } from "../edge-deps.ts";
import { BAD_KEY_NOTE, HTML, PAGE_ERROR, PAGE_ERRORS_NOTE, PAGE_LIMITED, TEXT_LIMITED } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const HTML_TYPE = "text/html; charset=utf-8";
const TEXT_TYPE = "text/plain; charset=utf-8";
const MARKDOWN_TYPE = "text/markdown; charset=utf-8";
/** Pages carry inline styles, inline SVG and same-site forms, nothing else. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'";
/** Pages that depend on the caller's key, sent as a header or kept in the cookie. */
const KEYED = { "cache-control": "private, no-cache", vary: `${CREDENTIAL_VARY}, Cookie` };
const NODE_RE = /^(.+?)(\.md)?$/;
const DOC_PAGE_RE = /^[a-z0-9][a-z0-9-]{0,63}$/;
const FORM_MAX_BYTES = 2048;
const SEARCH_LIMIT = 20;
/** Markers filled with markup the runtime writes itself (escaped values inside). */
const NOTICE_RAW = new Set(["notice"]);
const ACTIVE_RAW = new Set(["active", "saved"]);

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/",
    operationId: "getRoot",
    metrics: "request",
    security: ["none"],
    summary: "The service, for people and for agents",
    description:
      "Content negotiation on `Accept`: `application/json` (preferred over text/html by q-value or order) returns a short machine description (API version, build, verticals, links to /openapi.json, /docs, /browse, /llms.txt, /mcp); anything else returns an HTML page with the same links. `Vary: Accept`.",
    responses: {
      200: { description: "HTML page or JSON description", content: { ...HTML, "application/json": ServiceDescriptionSchema } },
    },
  },
  {
    method: "get",
    path: "/browse",
    operationId: "browseVerticals",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: the verticals",
    description:
      "Static HTML pages generated at build time from dist/data (no client framework, no script). Lists every vertical with its status and node count, and links to /docs. " +
      BAD_KEY_NOTE,
    responses: { 200: { description: "HTML page", content: HTML, headers: ["Credential-Problem", "Set-Cookie"] }, 429: PAGE_LIMITED },
  },
  {
    method: "get",
    path: "/browse/{vertical}",
    operationId: "browseVertical",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: a vertical's index as a graph picture",
    description: [
      "The vertical's index as an SVG graph laid out at build time in layers (readable size, scrolls in its own box; edges never cross a box): one shape per node, edges from `next_nodes`, trial modules marked, each shape a link to the node page; a table of the nodes below it. `ethics` answers as `ai-compliance`.",
      "Access is the index row of the access matrix (GET /api/demo without `node`): a paid vertical that is not index-free is 402 for a caller without credentials. A vertical without content is 404 here.",
      BAD_KEY_NOTE,
    ].join("\n\n"),
    params: [{ name: "vertical", in: "path", required: true, schema: Type.String() }],
    responses: {
      200: { description: "HTML page", content: HTML, headers: ["Credential-Problem", "Set-Cookie"] },
      401: PAGE_ERROR("Bad key on a vertical with no free index", ["Set-Cookie"]),
      402: PAGE_ERROR("Paid vertical without credentials"),
      403: PAGE_ERROR("The key does not read this vertical"),
      404: PAGE_ERROR("Unknown vertical or no content"),
      429: PAGE_LIMITED,
    },
  },
  {
    method: "get",
    path: "/browse/{vertical}/{node}",
    operationId: "browseNode",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: one node",
    description: [
      "The node's page: summary, version, dates, sources and its four layers, with rules drawn as readable gate trees (ALL / ANY / NOT over facts and outcomes) and their citations.",
      "Both variants are pre-rendered at build time. Anonymous visitors of an index-free vertical get the locked variant (index layer only, with how to unlock); the full variant is served when the request carries credentials that unlock the node (X-Service-Key or `Authorization: Bearer svc_…`, or the key cookie set by POST /browse/key; same matrix as GET /api/demo; `?key=` is not accepted, so keys do not end up in browser history). A page answered while a key is presented counts as one retrieval, metered exactly like GET /api/demo (429 when a window is full), so the site is no way around a quota; anonymous pages are static and not metered.",
      "`{node}.md` (e.g. `/browse/travel/trv-eu261.md`) is the page's markdown twin: the same layers the caller may see, layer text as authored, rules as nested ALL / ANY / NOT lists; metered like the HTML page.",
      BAD_KEY_NOTE + " The markdown twin starts with the notice as a quote.",
      PAGE_ERRORS_NOTE,
    ].join("\n\n"),
    params: [
      { name: "vertical", in: "path", required: true, schema: Type.String() },
      { name: "node", in: "path", required: true, schema: Type.String() },
    ],
    responses: {
      200: {
        description: "HTML page, or markdown for `{node}.md`",
        content: { ...HTML, "text/markdown": Type.String() },
        headers: ["Credential-Problem", "Set-Cookie"],
      },
      401: PAGE_ERROR("Bad key on a node with no free view (a key cookie that stopped working is cleared with Set-Cookie)", ["Set-Cookie"]),
      402: PAGE_ERROR("Paid vertical without credentials"),
      403: PAGE_ERROR("The key does not read this vertical or module"),
      404: PAGE_ERROR("Unknown vertical or node"),
      429: PAGE_ERROR(
        "A quota window of the presented key is full, or too many pages from this client in a minute (ANON_RATE_PER_MINUTE)",
        ["Retry-After"],
      ),
    },
  },
  {
    method: "get",
    path: "/browse/key",
    operationId: "browseKeyForm",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: the form to read with a key",
    description:
      "A page with a form that posts a key to POST /browse/key once, and a log-out button (POST /browse/logout), built at build time. The runtime adds which key this browser reads with (its public id, kind, scope and expiry, never the key) and, after POST /browse/key (`?saved=1`), that it was saved. " +
      BAD_KEY_NOTE,
    params: [{ name: "saved", in: "query", schema: Type.String(), description: "1 after a key was posted: the page confirms the save" }],
    responses: { 200: { description: "HTML page", content: HTML, headers: ["Credential-Problem", "Set-Cookie"] }, 429: PAGE_LIMITED },
  },
  {
    method: "post",
    path: "/browse/key",
    operationId: "browseSetKey",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: keep a key for this browser",
    description: [
      "Body: an HTML form (`application/x-www-form-urlencoded`) with `key`. The key is checked (401 `key_invalid`, `key_revoked`, `key_expired` as everywhere), then kept in a cookie `vkr_key`: HttpOnly, SameSite=Strict, Path=/browse, Max-Age 30 days, Secure when the site is served over https (or PUBLIC_BASE_URL is https). 303 to /browse/key?saved=1, which confirms the save and names the key by its public id. The cookie is read by the browse routes only; API routes never accept it.",
      "CSRF: besides SameSite=Strict, the request's `Origin` must be this site's own origin (or PUBLIC_BASE_URL's); any other or a missing Origin is 403 `cross_site_form`. Setting the cookie consumes no quota; reading a gated page with it does.",
      PAGE_ERRORS_NOTE,
    ].join("\n\n"),
    responses: {
      303: { description: "Key kept; see /browse/key?saved=1", headers: ["Location", "Set-Cookie"] },
      400: PAGE_ERROR("No key in the form, or not a form"),
      401: PAGE_ERROR("The key is not valid, revoked or expired"),
      403: PAGE_ERROR("Cross-site form post (Origin missing or not this site)"),
      413: PAGE_ERROR("Form larger than 2 KB"),
    },
  },
  {
    method: "post",
    path: "/browse/logout",
    operationId: "browseLogout",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: forget the key",
    description: "Clears the key cookie (Set-Cookie with Max-Age=0) and answers 303 to /browse/key. Same Origin check as POST /browse/key.",
    responses: { 303: { description: "Cookie cleared", headers: ["Location", "Set-Cookie"] }, 403: PAGE_ERROR("Cross-site form post") },
  },
  {
    method: "get",
    path: "/browse/search",
    operationId: "browseSearch",
    metrics: "request",
    security: ["none"],
    summary: "Browse site: search",
    description: [
      "The search box of every page (a GET form). Runs the same search as GET /api/search (up to 20 hits) for the caller (key header or key cookie), on the layers it may read, and lists the hits with links to their pages. Without `q` it shows the empty form.",
      "Metering and limits are those of GET /api/search: anonymous searches share the per-client limit, and a search over layers a key unlocked counts as one retrieval for that key.",
      BAD_KEY_NOTE,
      PAGE_ERRORS_NOTE,
    ].join("\n\n"),
    params: [
      { name: "q", in: "query", schema: Type.String({ maxLength: 200 }), description: "Search terms" },
      { name: "vertical", in: "query", schema: Type.String(), description: "A vertical slug; empty for every vertical the caller can see" },
    ],
    responses: {
      200: { description: "HTML page with the hits", content: HTML, headers: ["Credential-Problem", "Set-Cookie"] },
      400: PAGE_ERROR("Query too long or unknown vertical"),
      401: PAGE_ERROR("Bad key"),
      402: PAGE_ERROR("Paid vertical without credentials"),
      403: PAGE_ERROR("The key does not read this vertical"),
      429: PAGE_ERROR("Per-client or key limit reached", ["Retry-After"]),
    },
  },
  {
    method: "get",
    path: "/docs/{page}",
    operationId: "getGuide",
    metrics: "request",
    security: ["none"],
    summary: "The project's guides: README and docs/ as pages",
    description: [
      "The repository's README (`readme`), the index of its docs/ folder (`guides`), each page of docs/ by its file name (`configuration`, `endpoints`, `payments`, `operations`, `authoring`, `architecture`, `performance`, …) and the node field reference (`node-reference`), rendered from markdown at build time with the browse site's pipeline; the runtime serves the prebuilt HTML. Links between pages point at their /docs/ paths; headings carry GitHub's anchors.",
      "`/docs` itself (no page) is this API reference, since every problem's `type` points into it. Not limited per client: the pages hold no knowledge content.",
      PAGE_ERRORS_NOTE,
    ].join("\n\n"),
    params: [{ name: "page", in: "path", required: true, schema: Type.String(), description: "Page name, e.g. guides or configuration" }],
    responses: { 200: { description: "HTML page", content: HTML }, 404: PAGE_ERROR("No such page") },
  },
  {
    method: "get",
    path: "/llms.txt",
    operationId: "getLlmsTxt",
    metrics: "request",
    security: ["none"],
    summary: "llms.txt: the service and its verticals in markdown",
    description:
      "The llms.txt convention (an H1, a blockquote summary, then sections of links): every live vertical with a link to its index and each node's title and summary, the MCP endpoint (/mcp) and the docs. Generated at build time; free content only. Served as text/plain so browsers display it.",
    responses: { 200: { description: "Markdown", content: { "text/plain": Type.String() } }, 429: TEXT_LIMITED },
  },
  {
    method: "get",
    path: "/llms-full.txt",
    operationId: "getLlmsFullTxt",
    metrics: "request",
    security: ["none"],
    summary: "llms-full.txt: every vertical's index, and the full text of the fully open verticals",
    description:
      "The free index layer of every node of every live vertical (title, summary, version, next nodes, sources) in one markdown document, plus the four content layers (text, facts and rules) of the fully open verticals, which need no key anyway. Generated at build time; never contains a gated layer.",
    responses: { 200: { description: "Markdown", content: { "text/plain": Type.String() } }, 429: TEXT_LIMITED },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  const site = createBrowseSite(deps.config.distDir, deps.logger);
  /** A prebuilt page; `fill` adds what only this request knows (a refused key's notice, the active key). */
  const page = async (event: H3Event, rel: string, headers: Record<string, string> = {}, fill?: (text: string) => string) => {
    const text = await site.read(deps.build.current, rel);
    if (text === null) throw apiError("not_found", { detail: "This page is not part of the build (was the browse site built?)." });
    const type = rel.endsWith(".txt") ? TEXT_TYPE : rel.endsWith(".md") ? MARKDOWN_TYPE : HTML_TYPE;
    return sendBytes(event, 200, fill ? fill(text) : text, {
      "content-type": type,
      "cache-control": "public, max-age=60",
      "content-security-policy": PAGE_CSP,
      ...headers,
    });
  };
  /** A page read by `reader`: with a refused key, the notice, Credential-Problem and a cleared cookie; never cached then. */
  const warnedPage = (
    event: H3Event,
    rel: string,
    reader: PageReader,
    problem: CredentialProblem | null,
    headers: Record<string, string> = {},
    fill?: (text: string) => string,
  ) => {
    if (!problem) return page(event, rel, headers, fill);
    const notice = rel.endsWith(".md")
      ? (text: string) => credentialNoticeMarkdown(problem, reader.fromCookie) + text
      : (text: string) => fillTemplate(text, { notice: credentialNoticeHtml(problem, reader.fromCookie) }, NOTICE_RAW, true);
    return page(
      event,
      rel,
      { ...headers, "cache-control": "private, no-store", ...pageWarningHeaders(deps, event, reader, problem) },
      (text) => notice(fill ? fill(text) : text),
    );
  };
  const html = (handler: (event: H3Event) => Promise<Response> | Response) => _htmlErrors(deps, site, handler);

  route("getRoot", (event) => {
    const vary = { vary: "Accept" };
    if (prefersJson(event.req.headers.get("accept"))) return sendJson(event, 200, describeService(deps.build.current), vary);
    return page(event, "home.html", vary);
  });
  route(
    "browseVerticals",
    html(async (event) => {
      const reader = await readPageReader(deps, event);
      return warnedPage(event, "index.html", reader, _problem(reader), KEYED);
    }),
  );
  route("getLlmsTxt", (event) => page(event, "llms.txt"));
  route("getLlmsFullTxt", (event) => page(event, "llms-full.txt"));

  // The project's guides (README.md, docs/), rendered by the build; /docs itself is the API reference (docs.ts).
  route(
    "getGuide",
    html((event) => {
      const name = getRouterParam(event, "page") ?? "";
      if (!DOC_PAGE_RE.test(name))
        throw apiError("not_found", { detail: `No documentation page "${name.slice(0, 64)}"; the index is /docs/guides.` });
      return page(event, `docs/${name}.html`);
    }),
  );

  // The key form says which key this browser reads with, and that a key just posted was saved.
  route(
    "browseKeyForm",
    html(async (event) => {
      const reader = await readPageReader(deps, event);
      const saved = requestContext(event).url.searchParams.get("saved") === "1" && reader.caller.kind === "key";
      const active = reader.caller.kind === "key" ? _activeKey(reader.caller.record) : "";
      const fill = (text: string) =>
        fillTemplate(
          text,
          {
            active,
            saved: saved
              ? '<p class="saved" role="status">Key saved. Pages, search and node pages now show what it unlocks: <a href="/browse">browse the verticals</a>.</p>'
              : "",
          },
          ACTIVE_RAW,
          true,
        );
      return warnedPage(event, "key.html", reader, _problem(reader), { ...KEYED, "cache-control": "no-store" }, fill);
    }),
  );
  route(
    "browseSetKey",
    html(async (event) => {
      assertSameOrigin(event, deps.config);
      if (!(event.req.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded"))
        throw apiError("bad_request", { detail: "Send the form as application/x-www-form-urlencoded." });
      const key = new URLSearchParams(await readRawText(event, FORM_MAX_BYTES)).get("key")?.trim() ?? "";
      if (key === "")
        throw apiError("validation_failed", {
          detail: "Paste a key into the form.",
          errors: [{ pointer: "/key", message: "is required" }],
        });
      await resolveKey(key, deps.keys, deps.clock.now());
      return sendBytes(event, 303, null, {
        location: "/browse/key?saved=1",
        "set-cookie": keyCookieHeader(key, isSecureSite(event, deps.config)),
        "cache-control": "no-store",
      });
    }),
  );
  route(
    "browseLogout",
    html((event) => {
      assertSameOrigin(event, deps.config);
      return sendBytes(event, 303, null, {
        location: "/browse/key",
        "set-cookie": keyCookieHeader(null, isSecureSite(event, deps.config)),
        "cache-control": "no-store",
      });
    }),
  );

  route(
    "browseSearch",
    html(async (event) => {
      const ctx = requestContext(event);
      const template = await site.read(deps.build.current, "search.html");
      if (template === null) throw apiError("not_found", { detail: "The search page is not part of the build." });
      const q = (readSingleParam(ctx.url.searchParams, "q") ?? "").trim();
      const vertical = readSingleParam(ctx.url.searchParams, "vertical") || null;
      const now = deps.clock.now();
      // Limited per client by the page limit in front of every /browse page (metering/page-limit.ts).
      const reader = await readPageReader(deps, event);
      const problem = _problem(reader);
      const notice = problem ? credentialNoticeHtml(problem, reader.fromCookie) : "";
      let filled = fillSearchPage(template, { q, vertical, notice }, null);
      let headers: Record<string, string> = pageWarningHeaders(deps, event, reader, problem);
      if (q !== "") {
        // The same search as GET /api/search and the MCP tool, metered by the same rule.
        const outcome = await searchNodes(deps, reader, { q, vertical, limit: SEARCH_LIMIT }, now, { count: !isHeadRequest(event) });
        filled = fillSearchPage(template, { q, vertical, notice }, outcome.body);
        headers = { ...outcome.headers, ...headers };
      }
      return sendBytes(event, 200, filled, {
        "content-type": HTML_TYPE,
        "content-security-policy": PAGE_CSP,
        ...KEYED,
        "cache-control": "private, no-store",
        ...headers,
      });
    }),
  );

  route(
    "browseVertical",
    html(async (event) => {
      const { vertical, reader } = await _resolve(deps, event);
      return warnedPage(event, `${vertical.slug}/index.html`, reader, _problem(reader), KEYED);
    }),
  );

  route(
    "browseNode",
    html(async (event) => {
      const { vertical, reader, now } = await _resolve(deps, event);
      const build = deps.build.current;
      const [, nodeId = "", markdown] = NODE_RE.exec(getRouterParam(event, "node") ?? "") ?? [];
      const meta = build.nodeMeta(vertical.slug, nodeId);
      if (!meta) throw unknownNode(build, vertical.slug, nodeId);
      // Free pages are bounded by the page limit in front of every /browse page, and a pay token is refused, not charged.
      const plan = await withCookieRefusal(deps, event, reader, () =>
        planRead(deps, { build, vertical, meta, reader, perUseAccepted: false, unlockHint: false }, now),
      );
      const { decision } = plan;
      const headers: Record<string, string> = { ...KEYED };
      // A page of gated layers read with a key is a retrieval like GET /api/demo, so the site is no
      // way around a quota; free pages (open verticals, locked views) cost nothing.
      if (!isHeadRequest(event)) Object.assign(headers, await meterRead(deps, plan, now));
      return warnedPage(
        event,
        `${vertical.slug}/nodes/${meta.id}${decision.view === "full" ? "" : ".locked"}${markdown ? ".md" : ".html"}`,
        reader,
        decision.credentialProblem,
        headers,
      );
    }),
  );
});

// --- Internal helpers ---

/** The vertical of the path (aliases resolved), the reader and its right to see the vertical at all. */
async function _resolve(deps: EdgeDeps, event: H3Event) {
  const build = deps.build.current;
  const slug = getRouterParam(event, "vertical") ?? "";
  const vertical = build.resolveVertical(slug);
  if (!vertical || !build.manifest.verticals[vertical.slug])
    throw apiError("not_found", { detail: `No vertical with content named "${slug.slice(0, 64)}".` });
  const now = deps.clock.now();
  const reader = await readPageReader(deps, event);
  await withCookieRefusal(deps, event, reader, () =>
    orRefuse(decideRead({ caller: reader.caller, credentialProblem: reader.credentialProblem, vertical, node: null })),
  );
  return { vertical, reader, now };
}

/** The warning for a page every reader may see (the site's own pages, a free index). */
function _problem(reader: PageReader): CredentialProblem | null {
  return reader.credentialProblem ? toCredentialProblem(reader.credentialProblem) : null;
}

/** The key form's line about the key this browser reads with: its public id and what it opens, never the key. */
function _activeKey(record: { id: string; type: string; expires_at: string | null } & Parameters<typeof describeKeyScope>[0]): string {
  const until = record.expires_at ? `, until ${escapeHtml(record.expires_at.slice(0, 16).replace("T", " "))} UTC` : "";
  const what = record.type === "trial" ? `a trial key for ${record.vertical}` : `a membership key for ${describeKeyScope(record)}`;
  return `<p class="active">This browser reads with key <code>${escapeHtml(record.id)}</code>: ${escapeHtml(what)}${until}.</p>`;
}

/** Catalogue errors as an HTML page for browsers (the build's error.html filled in), problem+json for the rest. */
function _htmlErrors(deps: EdgeDeps, site: BrowseSite, handler: (event: H3Event) => Promise<Response> | Response) {
  return async (event: H3Event): Promise<Response> => {
    try {
      return await handler(event);
    } catch (error) {
      const accept = event.req.headers.get("accept");
      if (!isApiError(error) || !accept?.includes("text/html") || prefersJson(accept)) throw error;
      const template = await site.read(deps.build.current, "error.html");
      if (template === null) throw error;
      deps.metrics?.observeProblem(error);
      const ctx = requestContext(event);
      return sendBytes(event, error.status, fillErrorPage(template, error, ctx.requestId), {
        "content-type": HTML_TYPE,
        "content-security-policy": PAGE_CSP,
        "cache-control": "no-store",
        ...error.options.headers,
      });
    }
  };
}
