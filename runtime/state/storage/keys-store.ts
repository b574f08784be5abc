/**
 * Key records: stored by hash under `keys:<hash>`, with a per-account index so the volume plan can
 * be decided (the cap of `keys_per_account` itself is held by insert-once slots, see
 * `accounts/account-slots.ts`).
 *
 * Resolved keys are cached in-process by revision, because key lookup sits on every metered
 * request: every change through this store (issuance, revocation, plan change, by any instance
 * or the CLI) bumps one shared revision counter, and the cache is trusted while that counter is
 * unchanged, which is checked at most once per `cacheMs`. So other instances see a revocation
 * within `cacheMs`, as before, while a record is read from the store once instead of once per
 * `cacheMs`: with 10,000 keys in turn a time-limited cache missed on almost every request (a
 * store read, a JSON parse and a new record object that also invalidated the key's quota plan).
 */
import { boundedCache } from "../../shared/cache.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { CounterWindow, StateBackend } from "./backend.ts";
import { accountPart } from "./key-part.ts";

export interface KeysStore {
  get(hash: string): Promise<KeyRecord | null>;
  /**
   * The record `get` would answer, when it can answer without reading: held in the cache and the
   * shared revision checked within `cacheMs`. Undefined otherwise (then call `get`).
   */
  cached(hash: string): KeyRecord | undefined;
  put(record: KeyRecord): Promise<void>;
  /** Deletes a record nobody was ever given (a trial key that lost its agent's slot). */
  remove(hash: string): Promise<void>;
  listByAccount(account: string): Promise<KeyRecord[]>;
  list(filter: { label?: string }): Promise<KeyRecord[]>;
  /**
   * The records `list({})` answers, a page at a time and in no set order: a pass over every key
   * (the daily usage fold) that holds one page of records, not a million.
   */
  pages(pageSize: number): AsyncIterable<KeyRecord[]>;
}

const REVISION: CounterWindow = { key: "keys:revision", limit: Number.POSITIVE_INFINITY, expiresAt: Number.MAX_SAFE_INTEGER };
const CACHE_MAX = 100_000;
/** Records read at once while `list` collects every key. */
const LIST_PAGE = 500;

export function createKeysStore(backend: StateBackend, options: { cacheMs?: number; now?: () => number } = {}): KeysStore {
  const cacheMs = options.cacheMs ?? 1000;
  const now = options.now ?? Date.now;
  const cache = boundedCache<string, KeyRecord>(CACHE_MAX);
  let revision = Number.NaN;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let checking: Promise<void> | null = null;
  // Bumped whenever the cache is dropped: a read that began before must not refill it with an old record.
  let generation = 0;
  const drop = () => {
    cache.clear();
    generation++;
  };

  // Real time, not the service clock: this bounds how stale another instance's change may be seen.
  const checkedRecently = () => Date.now() - checkedAt < cacheMs;
  /** Drops the cache when the shared revision moved; reads it at most once per `cacheMs` (one read shared by concurrent callers). */
  const fresh = async () => {
    if (checkedRecently()) return;
    checking ??= (async () => {
      try {
        const [current] = await backend.readCounters([REVISION.key], now());
        if (current !== revision) drop();
        revision = current!;
        checkedAt = Date.now();
      } finally {
        checking = null;
      }
    })();
    await checking;
  };
  const bump = async () => {
    await backend.consume([REVISION], 1, now());
    drop();
    checkedAt = Number.NEGATIVE_INFINITY;
  };
  /** Every listed record, a page at a time: `list` and the daily usage fold read keys through it. */
  const pages = async function* (pageSize: number): AsyncIterable<KeyRecord[]> {
    for await (const names of backend.recordPages("keys", pageSize)) {
      const listed = (await Promise.all(names.map((k) => backend.records.getItem<KeyRecord>(k)))).filter(_isListed);
      if (listed.length > 0) yield listed;
    }
  };

  return {
    cached(hash) {
      return cacheMs > 0 && checkedRecently() ? cache.get(hash) : undefined;
    },
    async get(hash) {
      if (cacheMs > 0) {
        await fresh();
        const hit = cache.get(hash);
        if (hit) return hit;
      }
      const readAt = generation;
      const record = (await backend.records.getItem<KeyRecord>(`keys:${hash}`)) ?? null;
      // Unknown keys are not cached: a key created on another instance must work at once.
      if (record && cacheMs > 0 && readAt === generation) {
        cache.set(hash, record);
      }
      return record;
    },
    async put(record) {
      await backend.records.setItem(`keys:${record.hash}`, record);
      // One record per (account, key) instead of a list: concurrent issuance never loses an entry.
      if (record.account) await backend.records.setItem(`accounts:${accountPart(record.account)}:${record.hash}`, 1);
      await bump();
    },
    async remove(hash) {
      await backend.records.removeItem(`keys:${hash}`);
      await bump();
    },
    async listByAccount(account) {
      const prefix = `accounts:${accountPart(account)}:`;
      const hashes = (await backend.records.getKeys(prefix)).map((k) => k.slice(k.lastIndexOf(":") + 1));
      const records = await Promise.all(hashes.map((h) => backend.records.getItem<KeyRecord>(`keys:${h}`)));
      return records.filter(_isListed);
    },
    async list(filter) {
      const listed: KeyRecord[] = [];
      for await (const page of pages(LIST_PAGE)) listed.push(...page.filter((r) => filter.label === undefined || r.label === filter.label));
      return listed.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },
    pages,
  };
}

// --- Internal helpers ---

/** A record that is listed: present, and not replaced by a rotation. */
function _isListed(record: KeyRecord | null): record is KeyRecord {
  return record !== null && record.replaced_by === undefined;
}
