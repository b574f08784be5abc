/**
 * The browse site's key cookie: a member pastes a key once on /browse/key and reads the pages it
 * unlocks. The cookie is HttpOnly (no script reads it), SameSite=Strict (never sent on a request
 * started by another site), Secure when the site is served over https, and scoped to /browse, so
 * the API routes never see it and stay free of cookie-based CSRF. The forms that set or clear it
 * are POSTs checked for a same-origin `Origin` as well.
 */
import type { H3Event } from "h3";
import type { RuntimeConfig } from "../../domain/runtime-config.ts";
import { apiError } from "../../shared/errors.ts";
import { requestContext } from "../../shared/http/context.ts";

export const KEY_COOKIE = "vkr_key";
/** The cookie lasts as long as a membership month; an expired or revoked key is refused on use anyway. */
const MAX_AGE_SECONDS = 30 * 24 * 3600;
const COOKIE_RE = new RegExp(`(?:^|;\\s*)${KEY_COOKIE}=([^;]*)`);

/** The key kept in the cookie, or null. */
export function readKeyCookie(headers: Headers): string | null {
  const match = COOKIE_RE.exec(headers.get("cookie") ?? "");
  if (!match || match[1] === "") return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

export function keyCookieHeader(key: string | null, secure: boolean): string {
  const value = key === null ? "" : encodeURIComponent(key);
  return `${KEY_COOKIE}=${value}; Path=/browse; HttpOnly; SameSite=Strict; Max-Age=${key === null ? 0 : MAX_AGE_SECONDS}${secure ? "; Secure" : ""}`;
}

/** True when the page is served over https (directly, or as PUBLIC_BASE_URL says behind a proxy). */
export function isSecureSite(event: H3Event, config: Pick<RuntimeConfig, "publicBaseUrl">): boolean {
  return requestContext(event).url.protocol === "https:" || (config.publicBaseUrl?.startsWith("https://") ?? false);
}

/**
 * Refuses a form POST that another site started: the `Origin` must be this site's (the request's
 * own origin or PUBLIC_BASE_URL's). Pages are served with `Referrer-Policy: no-referrer`, under
 * which browsers send `Origin: null` even for their own forms; then the browser's
 * `Sec-Fetch-Site: same-origin` (a header pages cannot set) must vouch instead. Anything else is
 * refused, as nothing but a browser form needs these routes.
 */
export function assertSameOrigin(event: H3Event, config: Pick<RuntimeConfig, "publicBaseUrl">): void {
  const origin = event.req.headers.get("origin");
  const own = [requestContext(event).url.origin, config.publicBaseUrl ? new URL(config.publicBaseUrl).origin : null];
  if (origin !== null && own.includes(origin)) return;
  if ((origin === null || origin === "null") && event.req.headers.get("sec-fetch-site") === "same-origin") return;
  throw apiError("cross_site_form", {
    detail:
      origin === null
        ? "The form post carried neither Origin nor Sec-Fetch-Site: same-origin."
        : `Form posts from ${origin.slice(0, 100)} are refused.`,
  });
}
