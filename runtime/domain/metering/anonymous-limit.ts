/**
 * Per-client limit for free reads (anonymous requests, and free content read with any
 * credentials): ANON_RATE_PER_MINUTE per client address and surface, a fixed one-minute window of
 * the client limiter (storage/client-limiter.ts, which counts it in memory on the embedded store
 * and in the shared store on Redis, where N instances would otherwise give a client N times it).
 */
import { apiError } from "../../shared/errors.ts";
import type { ClientLimiter, ClientLimitName } from "../../state/storage/client-limiter.ts";

export interface AnonymousLimiter {
  /** Counts one request; returns the seconds to wait when over the limit, else 0. */
  hit(client: string, now: number): Promise<number>;
  /** Counts one request and throws the 429 `rate_limited` problem when over the limit. */
  assert(client: string, now: number): Promise<void>;
}

export function createAnonymousLimiter(
  limiter: ClientLimiter,
  name: ClientLimitName & `free-reads:${string}`,
  perMinute: number,
): AnonymousLimiter {
  const hit = (client: string, now: number) => limiter.consume(name, client, perMinute, now);
  return {
    async assert(client, now) {
      const wait = await hit(client, now);
      if (wait > 0) {
        throw apiError("rate_limited", {
          detail: `Free reads are limited to ${perMinute} a minute per client; gated content read with a key counts against the key's quota instead.`,
          headers: { "retry-after": String(wait) },
        });
      }
    },
    hit,
  };
}
