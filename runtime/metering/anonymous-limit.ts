/**
 * Per-client limit for anonymous requests: a fixed one-minute window per client address, kept in
 * memory per instance. Anonymous requests read only free layers, so an exact shared count is not
 * worth a store write on the hot path; the map is replaced each minute, so memory stays bounded
 * by one minute of distinct clients.
 */
export interface AnonymousLimiter {
  /** Counts one request; returns the seconds to wait when over the limit, else 0. */
  hit(client: string, now: number): number;
}

export function createAnonymousLimiter(perMinute: number): AnonymousLimiter {
  let window = -1;
  let counts = new Map<string, number>();
  return {
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
}
