/**
 * The browse site and its agent-facing siblings, all served from files the build wrote:
 * `/browse`, `/browse/:vertical` (graph picture), `/browse/:vertical/:node` (locked or full
 * variant after the access check), `/llms.txt`, `/llms-full.txt`, and `GET /` (HTML page or JSON
 * description by `Accept`). The runtime only picks a file; it never renders content.
 */
import { definePlugin, getRouterParam, type H3Event } from "h3";
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { apiError } from "../errors.ts";
import { readCredentials, resolveCaller } from "../access/credentials.ts";
import { resolveAccess, resolveContentAccess } from "../access/resolve-access.ts";
import { createBrowseSite } from "../browse/read-site.ts";
import { describeService, prefersJson } from "../browse/describe-service.ts";
import { requestContext } from "../http/context.ts";
import { CREDENTIAL_VARY } from "../http/headers.ts";
import { sendBytes, sendJson } from "../http/respond.ts";
import { meterKey } from "../metering/meter.ts";

const HTML_TYPE = "text/html; charset=utf-8";
const TEXT_TYPE = "text/plain; charset=utf-8";
/** Pages carry inline styles and inline SVG, nothing else. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

export default definePlugin<AppDeps>((app, deps) => {
  const site = createBrowseSite(deps.config.distDir, deps.logger);
  const page = async (event: H3Event, rel: string, headers: Record<string, string> = {}) => {
    const text = await site.read(deps.build.current, rel);
    if (text === null) throw apiError("not_found", { detail: "This page is not part of the build (was the browse site built?)." });
    const type = rel.endsWith(".txt") ? TEXT_TYPE : HTML_TYPE;
    return sendBytes(event, 200, text, { "content-type": type, "cache-control": "public, max-age=60", "content-security-policy": PAGE_CSP, ...headers });
  };

  app.get("/", (event) => {
    const vary = { vary: "Accept" };
    if (prefersJson(event.req.headers.get("accept"))) return sendJson(event, 200, describeService(deps.build.current), vary);
    return page(event, "home.html", vary);
  });
  app.get("/browse", (event) => page(event, "index.html"));
  app.get("/llms.txt", (event) => page(event, "llms.txt"));
  app.get("/llms-full.txt", (event) => page(event, "llms-full.txt"));

  app.get("/browse/:vertical", async (event) => {
    const { vertical } = await _resolve(deps, event);
    return page(event, `${vertical.slug}/index.html`, { "cache-control": "private, no-cache", vary: CREDENTIAL_VARY });
  });

  app.get("/browse/:vertical/:node", async (event) => {
    const { vertical, caller, now } = await _resolve(deps, event);
    const nodeId = getRouterParam(event, "node") ?? "";
    const meta = deps.build.current.nodeMeta(vertical.slug, nodeId);
    if (!meta) throw apiError("node_not_found", { detail: `No node "${nodeId.slice(0, 100)}" in ${vertical.slug}.` });
    const view = resolveContentAccess({ caller, vertical, node: meta });
    const headers: Record<string, string> = { "cache-control": "private, no-cache", vary: CREDENTIAL_VARY };
    // A page read with a key is a retrieval like GET /api/demo, so the site is no way around a quota.
    if (caller.kind === "key") Object.assign(headers, (await meterKey(deps.backend, limitsInForce(deps), caller.record, now)).headers);
    return page(event, `${vertical.slug}/nodes/${meta.id}${view === "full" ? "" : ".locked"}.html`, headers);
  });
});

// --- Internal helpers ---

/** The vertical of the path (aliases resolved), the caller and its right to see the vertical at all. */
async function _resolve(deps: AppDeps, event: H3Event) {
  const ctx = requestContext(event);
  const build = deps.build.current;
  const slug = getRouterParam(event, "vertical") ?? "";
  const vertical = build.resolveVertical(slug);
  if (!vertical || !build.manifest.verticals[vertical.slug]) throw apiError("not_found", { detail: `No vertical with content named "${slug.slice(0, 64)}".` });
  const now = deps.clock.now();
  // Header credentials only: a `?key=` in a page URL would end up in browser history and referrers.
  const caller = await resolveCaller(readCredentials(event.req.headers, ctx.url, { allowQueryKey: false }), deps.keys, now);
  if (caller.kind === "key") ctx.keyId = caller.record.id;
  resolveAccess({ caller, vertical, node: null });
  return { vertical, caller, now };
}
