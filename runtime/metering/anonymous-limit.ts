/**
 * Per-client limit for free reads (anonymous requests, and free content read with any
 * credentials): a fixed one-minute window per client address. On one instance (the embedded
 * store) the count is kept in memory: free reads are never counted against a key, so a store
 * write on the hot path buys nothing there, and the map is replaced each minute, so memory stays
 * bounded by one minute of distinct clients. With a shared store (Redis) the count is the store's
 * atomic counter, consumed first like a quota: behind a balancer N instances would otherwise give a
 * client N times the limit.
 */
import { apiError, isApiError } from "../errors.ts";
import type { StateBackend } from "../storage/backend.ts";

export interface AnonymousLimiter {
  /** Counts one request; returns the seconds to wait when over the limit, else 0. */
  hit(client: string, now: number): Promise<number>;
  /** Counts one request and throws the 429 `rate_limited` problem when over the limit. */
  assert(client: string, now: number): Promise<void>;
}

export interface SharedLimitOptions {
  backend: Pick<StateBackend, "kind" | "consume">;
  /** Names the count, so each limited surface keeps its own (`demo`, `pages`, …). */
  name: string;
}

export function createAnonymousLimiter(perMinute: number, shared?: SharedLimitOptions): AnonymousLimiter {
  const count = shared && shared.backend.kind !== "sqlite" ? _sharedCount(perMinute, shared) : _localCount(perMinute);
  return {
    async assert(client, now) {
      const wait = await count(client, now);
      if (wait > 0) {
        throw apiError("rate_limited", {
          detail: `Free reads are limited to ${perMinute} a minute per client; gated content read with a key counts against the key's quota instead.`,
          headers: { "retry-after": String(wait) },
        });
      }
    },
    hit: count,
  };
}

// --- Internal helpers ---

function _waitSeconds(minute: number, now: number): number {
  return Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000));
}

function _localCount(perMinute: number): (client: string, now: number) => Promise<number> {
  let window = -1;
  let counts = new Map<string, number>();
  return async (client, now) => {
    const current = Math.floor(now / 60_000);
    if (current !== window) {
      window = current;
      counts = new Map();
    }
    const n = (counts.get(client) ?? 0) + 1;
    counts.set(client, n);
    return n > perMinute ? _waitSeconds(current, now) : 0;
  };
}

/**
 * While the store is unreachable the count falls back to this instance's memory: free reads need
 * no state and keep being served in an outage (each instance then limits on its own).
 */
function _sharedCount(perMinute: number, { backend, name }: SharedLimitOptions): (client: string, now: number) => Promise<number> {
  const fallback = _localCount(perMinute);
  return async (client, now) => {
    const minute = Math.floor(now / 60_000);
    // `rate:` marks a limit's counter (not replica-confirmed, see storage/redis-backend.ts).
    const window = {
      key: `rate:${name}:{${Buffer.from(client, "utf8").toString("hex")}}:${minute}`,
      limit: perMinute,
      expiresAt: (minute + 1) * 60_000,
    };
    let result;
    try {
      result = await backend.consume([window], 1, now);
    } catch (error) {
      if (isApiError(error) && error.code === "store_unavailable") return fallback(client, now);
      throw error;
    }
    return result.admitted ? 0 : _waitSeconds(minute, now);
  };
}
