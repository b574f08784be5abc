/**
 * The caller of one request, resolved once and kept on `event.context`: a middleware installs a
 * lazy slot, so a request that never needs credentials (MCP initialize, the health check) never
 * looks a key up, and one that asks twice (a page and its search) looks it up once. Resolving a key
 * records its public id on the request context for the request log, here and nowhere else.
 *
 * Where the key may come from is the route's choice (`?key=` only on GET /api/demo and GET
 * /api/keys, the site's cookie only on the pages); each choice is resolved at most once per request.
 */
import type { H3, H3Event } from "h3";
import type { AppDeps } from "../deps.ts";
import { requestContext } from "../http/context.ts";
import type { KeyRecord } from "../schema/keys.ts";
import { readCredentials, resolveCaller, toReader, type Caller, type PresentedCredentials, type Reader } from "./credentials.ts";

export interface CallerOptions {
  /** Accept the key in `?key=` as well (GET /api/demo, GET /api/keys). */
  allowQueryKey?: boolean;
  /** Where the credentials come from when not from the headers (the pages' key cookie); returns them amended. */
  fallback?: (credentials: PresentedCredentials) => PresentedCredentials;
}

export interface RequestCaller {
  /** The credentials as presented, before any key lookup. */
  credentials(options?: CallerOptions): PresentedCredentials;
  /** The caller; a presented key that is refused (malformed, unknown, revoked, expired) throws its 401. */
  caller(options?: CallerOptions): Promise<Caller>;
  /** The caller as a reader of content: a refused key becomes anonymous plus its refusal (see `decideRead`). */
  reader(options?: CallerOptions): Promise<Reader>;
}

declare module "h3" {
  interface H3EventContext {
    /** Installed by `useRequestCaller` on every request. */
    caller?: RequestCaller;
  }
}

/** Registers the middleware that installs the request's caller slot (first, before any route). */
export function useRequestCaller(app: H3, deps: Pick<AppDeps, "keys" | "clock">): void {
  app.use((event) => {
    event.context.caller = _createRequestCaller(event, deps);
  });
}

/** The request's caller slot (installed by the middleware; created here for an app without it, as in unit tests of a route). */
export function requestCaller(event: H3Event, deps: Pick<AppDeps, "keys" | "clock">): RequestCaller {
  return (event.context.caller ??= _createRequestCaller(event, deps));
}

/** Records the public id of a key a route looked up on its own terms (GET /api/keys and /api/verify describe revoked keys too). */
export function noteKey(event: H3Event, record: Pick<KeyRecord, "id">): void {
  requestContext(event).keyId = record.id;
}

// --- Internal helpers ---

function _createRequestCaller(event: H3Event, deps: Pick<AppDeps, "keys" | "clock">): RequestCaller {
  // At most a few distinct choices per request (header only, with ?key=, with the cookie).
  const presented = new Map<string, PresentedCredentials>();
  const resolved = new Map<string, Promise<Caller>>();
  const slotOf = (options: CallerOptions = {}) => (options.allowQueryKey ? "q" : "h") + (options.fallback ? "c" : "");
  const credentials = (options: CallerOptions = {}) => {
    const slot = slotOf(options);
    let found = presented.get(slot);
    if (!found) {
      found = readCredentials(event.req.headers, requestContext(event).url, { allowQueryKey: options.allowQueryKey ?? false });
      if (options.fallback) found = options.fallback(found);
      presented.set(slot, found);
    }
    return found;
  };
  const caller = (options: CallerOptions = {}) => {
    const slot = slotOf(options);
    let found = resolved.get(slot);
    if (!found) {
      found = resolveCaller(credentials(options), deps.keys, deps.clock.now()).then((c) => {
        if (c.kind === "key") noteKey(event, c.record);
        return c;
      });
      resolved.set(slot, found);
    }
    return found;
  };
  return { credentials, caller, reader: (options) => toReader(caller(options)) };
}
