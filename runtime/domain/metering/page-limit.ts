/**
 * Per-client limit on the free pages: `/browse`, `/browse/**`, `/llms.txt` and `/llms-full.txt`
 * carry the same knowledge as the free index of GET /api/demo, so they get its per-minute limit
 * per client address (`ANON_RATE_PER_MINUTE`, its own count). Every request counts, whatever
 * credentials it carries: a refused key is still shown the free page, so a made-up key must not
 * be a way around the limit. People get a friendly HTML page, agents on the text files a problem.
 */
import type { H3, H3Event } from "h3";
import { apiError } from "../../shared/errors.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { sendBytes } from "../../shared/http/respond.ts";
import type { DomainDeps } from "../domain-deps.ts";

/** The paths the limit covers; one matcher, so a page counts once however many patterns fit it. */
export function isLimitedPage(pathname: string): boolean {
  return pathname === "/browse" || pathname.startsWith("/browse/") || pathname === "/llms.txt" || pathname === "/llms-full.txt";
}

/** Registers the limit in front of the page routes (before them, so a refused page is never read). */
export function usePageLimit(app: H3, deps: Pick<DomainDeps, "clock" | "config" | "shared">): void {
  const limiter = deps.shared.freeReads.pages;
  const guard = async (event: H3Event) => {
    const wait = await limiter.hit(clientAddress(event, deps.config), deps.clock.now());
    if (wait === 0) return undefined;
    const headers = { "retry-after": String(wait) };
    if (event.url.pathname.endsWith(".txt")) {
      throw apiError("rate_limited", { detail: `Pages are limited to ${deps.config.anonymousPerMinute} a minute per client.`, headers });
    }
    return sendBytes(event, 429, _tooManyPage(deps.config.anonymousPerMinute, wait), {
      ...headers,
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    });
  };
  app.use(guard, { match: (event) => isLimitedPage(event.url.pathname) });
}

// --- Internal helpers ---

function _tooManyPage(perMinute: number, wait: number): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>Too many pages at once</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}code{background:#f2f2f2;padding:0 .2em}</style></head>
<body><h1>Too many pages at once</h1>
<p>This address asked for more than ${perMinute} pages in a minute. Please wait ${wait} second${wait === 1 ? "" : "s"}, then reload.</p>
<p>Agents: the same knowledge is in <code>GET /api/demo</code>, <code>/mcp</code> and <code>/llms.txt</code>; a key lifts per-address limits on the API.</p>
<p><a href="/browse">Back to the verticals</a></p></body></html>
`;
}
