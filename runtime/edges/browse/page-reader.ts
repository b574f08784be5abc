/**
 * Who reads a page of the site, and what a page says when their key was refused. Header
 * credentials come first, then the key cookie of /browse/key; never `?key=` (a key in a page URL
 * ends up in browser history and referrers).
 *
 * A refused key (malformed, unknown, revoked, expired) reads what a visitor without a key reads:
 * the page carries the `Credential-Problem` header and a visible notice linking to /browse/key,
 * and a cookie that held the key is cleared, so the next page is simply anonymous. Content with no
 * free view keeps the key's 401, with the cookie cleared as well.
 */
import type { H3Event } from "h3";
import { credentialProblemHeaders } from "../../domain/access/credential-problem.ts";
import { isCredentialRefusal, type Reader } from "../../domain/access/credentials.ts";
import { type CallerOptions, requestCaller } from "../../domain/access/request-caller.ts";
import { type ApiError, apiError } from "../../shared/errors.ts";
import { escapeHtml } from "../../shared/http/escape-html.ts";
import type { CredentialProblem } from "../../shared/schema/unlock.ts";
import type { EdgeDeps } from "../edge-deps.ts";
import { isSecureSite, keyCookieHeader, readKeyCookie } from "./key-cookie.ts";

export interface PageReader extends Reader {
  /** The key came from the site's cookie (so a refusal clears it). */
  fromCookie: boolean;
}

export async function readPageReader(deps: EdgeDeps, event: H3Event): Promise<PageReader> {
  const slot = requestCaller(event, deps);
  const reader = await slot.reader(_withCookie(event));
  const header = slot.credentials();
  return { ...reader, fromCookie: header.key === null && header.payment === null && readKeyCookie(event.req.headers) !== null };
}

/** What a page read with a refused key adds: the warning header, and the cookie cleared when it held the key. */
export function pageWarningHeaders(
  deps: EdgeDeps,
  event: H3Event,
  reader: PageReader,
  problem: CredentialProblem | null,
): Record<string, string> {
  if (!problem) return {};
  return {
    ...credentialProblemHeaders(problem),
    ...(reader.fromCookie ? { "set-cookie": keyCookieHeader(null, isSecureSite(event, deps.config)) } : {}),
  };
}

/** Runs a page's handler; a 401 for the reader's own key (content with no free view) also clears a cookie that held it. */
export async function withCookieRefusal<T>(deps: EdgeDeps, event: H3Event, reader: PageReader, run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!reader.fromCookie || !isCredentialRefusal(error)) throw error;
    throw apiError((error as ApiError).code, {
      detail: "The key this browser kept for the site no longer works; it was removed. Paste a current key on /browse/key.",
      headers: { "set-cookie": keyCookieHeader(null, isSecureSite(event, deps.config)) },
    });
  }
}

/** The visible notice, in HTML, for the `<!--vkr:notice-->` marker of a page. */
export function credentialNoticeHtml(problem: CredentialProblem, fromCookie: boolean): string {
  return `<p class="notice" role="status"><strong>${escapeHtml(problem.title)}</strong> (<code>${escapeHtml(problem.code)}</code>): ${_whose(fromCookie)} You are reading the free pages, as without a key. <a href="/browse/key">Use a current key</a>.</p>`;
}

/** The same notice at the top of a markdown twin. */
export function credentialNoticeMarkdown(problem: CredentialProblem, fromCookie: boolean): string {
  return `> **${problem.title}** (\`${problem.code}\`): ${_whose(fromCookie)} You are reading the free view, as without a key. Use a current key at /browse/key.\n\n`;
}

// --- Internal helpers ---

/** The pages' credentials: the headers', else the key cookie when the headers carry neither a key nor a pay token. */
function _withCookie(event: H3Event): CallerOptions {
  return {
    fallback: (presented) => {
      if (presented.key !== null || presented.payment !== null) return presented;
      const cookie = readKeyCookie(event.req.headers);
      return cookie === null ? presented : { ...presented, key: cookie };
    },
  };
}

function _whose(fromCookie: boolean): string {
  return fromCookie ? "the key this browser kept no longer works, so it was removed." : "the key sent with this request was not used.";
}
