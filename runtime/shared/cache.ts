/**
 * The one in-process cache: a bounded map that drops its least recently used entry when full
 * (lru-cache). A get moves the entry to the back of a preallocated list and a set reuses a freed
 * slot, so a hit allocates nothing on the hot paths that use it (metering plans, key digests).
 * The list is allocated once for `max` entries: a cache made per object (a rule set, a build)
 * is worth making on its first set, not up front.
 */
import { LRUCache } from "lru-cache";

export interface BoundedCache<K extends {}, V extends {}> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  has(key: K): boolean;
  delete(key: K): boolean;
  clear(): void;
  readonly size: number;
}

export function boundedCache<K extends {}, V extends {}>(max: number): BoundedCache<K, V> {
  const lru = new LRUCache<K, V>({ max });
  return {
    get: (key) => lru.get(key, _options()),
    set: (key, value) => void lru.set(key, value, _options()),
    has: (key) => lru.has(key, _options()),
    delete: (key) => lru.delete(key),
    // lru-cache's clear rewrites its whole preallocated list, however few entries it holds: the key
    // store drops its cache on every issuance, and a bulk issuance with nothing cached paid that per key.
    clear: () => void (lru.size > 0 && lru.clear()),
    get size() {
      return lru.size;
    },
  };
}

// --- Internal helpers ---

/**
 * lru-cache defaults its options argument to a new `{}` on every call and writes a `status` into
 * it; one reused object, its status reset first, spares a hit that allocation. The reset keeps a
 * status made for a diagnostics_channel subscriber from being handed to the next call.
 */
const REUSED: { status?: undefined } = {};

function _options(): typeof REUSED {
  REUSED.status = undefined;
  return REUSED;
}
