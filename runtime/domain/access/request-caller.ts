/**
 * The caller of one request, resolved once and kept on `event.context`: the slot is made on the
 * first ask, so a request that never needs credentials (MCP initialize, the health check) never
 * looks a key up, and one that asks twice (a page and its search) looks it up once. Resolving a key
 * records its public id on the request context for the request log, here and nowhere else.
 *
 * Where the key may come from is the route's choice (`?key=` only on GET /api/demo and GET
 * /api/keys, the site's cookie only on the pages); each choice is resolved at most once per request.
 */
import type { H3Event } from "h3";
import { requestContext } from "../../shared/http/context.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { type Caller, type PresentedCredentials, type Reader, readCredentials, resolveCaller, toReader } from "./credentials.ts";

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
  /** The caller as a reader of content: a refused key becomes anonymous plus its refusal (see `decideRead`); no promise when the key's record is cached. */
  reader(options?: CallerOptions): Reader | Promise<Reader>;
}

declare module "h3" {
  interface H3EventContext {
    /** Created by `requestCaller` on a request's first ask. */
    caller?: RequestCaller;
  }
}

/** The request's caller slot, created on its first ask: a request that never needs credentials never looks a key up. */
export function requestCaller(event: H3Event, deps: Pick<DomainDeps, "keys" | "clock">): RequestCaller {
  return (event.context.caller ??= new _CallerSlot(event, deps));
}

/** Records the public id of a key a route looked up on its own terms (GET /api/keys and /api/verify describe revoked keys too). */
export function noteKey(event: H3Event, record: Pick<KeyRecord, "id">): void {
  requestContext(event).keyId = record.id;
}

// --- Internal helpers ---

/**
 * One request's slot. Methods on a class, not closures made per request, and a key whose record
 * is cached resolves without a promise (`resolveCaller`), so a warm metered read awaits nothing
 * before its quota check.
 */
class _CallerSlot implements RequestCaller {
  // At most a few distinct choices per request (header only, with ?key=, with the cookie).
  readonly #presented = new Map<string, PresentedCredentials>();
  readonly #resolved = new Map<string, Caller | Promise<Caller>>();
  readonly #event: H3Event;
  readonly #deps: Pick<DomainDeps, "keys" | "clock">;

  constructor(event: H3Event, deps: Pick<DomainDeps, "keys" | "clock">) {
    this.#event = event;
    this.#deps = deps;
  }

  credentials(options: CallerOptions = {}): PresentedCredentials {
    const slot = _slotOf(options);
    let found = this.#presented.get(slot);
    if (!found) {
      found = readCredentials(this.#event.req.headers, requestContext(this.#event).url, { allowQueryKey: options.allowQueryKey ?? false });
      if (options.fallback) found = options.fallback(found);
      this.#presented.set(slot, found);
    }
    return found;
  }

  caller(options: CallerOptions = {}): Promise<Caller> {
    const found = this.#resolve(options);
    return found instanceof Promise ? found : Promise.resolve(found);
  }

  reader(options: CallerOptions = {}): Reader | Promise<Reader> {
    return toReader(this.#resolve(options));
  }

  #resolve(options: CallerOptions): Caller | Promise<Caller> {
    const slot = _slotOf(options);
    let found = this.#resolved.get(slot);
    if (found === undefined) {
      try {
        found = resolveCaller(this.credentials(options), this.#deps.keys, this.#deps.clock.now());
      } catch (error) {
        found = Promise.reject(error); // a refused key, kept so a second ask gets the same refusal
      }
      if (found instanceof Promise) found = found.then((c) => this.#noted(c));
      else this.#noted(found);
      this.#resolved.set(slot, found);
    }
    return found;
  }

  #noted(caller: Caller): Caller {
    if (caller.kind === "key") noteKey(this.#event, caller.record);
    return caller;
  }
}

function _slotOf(options: CallerOptions): string {
  return (options.allowQueryKey ? "q" : "h") + (options.fallback ? "c" : "");
}
