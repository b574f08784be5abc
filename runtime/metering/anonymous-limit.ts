/**
 * Per-client limit for free reads (anonymous requests, and free content read with any
 * credentials): a fixed one-minute window per client address, kept in memory per instance. Free
 * reads are never counted against a key, so an exact shared count is not worth a store write on
 * the hot path; the map is replaced each minute, so memory stays bounded
 * by one minute of distinct clients.
 */
import { apiError } from "../errors.ts";

export interface AnonymousLimiter {
  /** Counts one request; returns the seconds to wait when over the limit, else 0. */
  hit(client: string, now: number): number;
  /** Counts one request and throws the 429 `rate_limited` problem when over the limit. */
  assert(client: string, now: number): void;
}

export function createAnonymousLimiter(perMinute: number): AnonymousLimiter {
  let window = -1;
  let counts = new Map<string, number>();
  const limiter: AnonymousLimiter = {
    assert(client, now) {
      const wait = limiter.hit(client, now);
      if (wait > 0) {
        throw apiError("rate_limited", {
          detail: `Free reads are limited to ${perMinute} a minute per client; gated content read with a key counts against the key's quota instead.`,
          headers: { "retry-after": String(wait) },
        });
      }
    },
    hit(client, now) {
      const current = Math.floor(now / 60_000);
      if (current !== window) {
        window = current;
        counts = new Map();
      }
      const n = (counts.get(client) ?? 0) + 1;
      counts.set(client, n);
      return n > perMinute ? Math.max(1, Math.ceil(((current + 1) * 60_000 - now) / 1000)) : 0;
    },
  };
  return limiter;
}
