/**
 * Key records: stored by hash under `keys:<hash>`, with a per-account index so the volume plan can
 * be decided (the 5-key cap itself is an atomic counter, see `issue-keys.ts`). Resolved keys are cached in-process for a short time because
 * key lookup sits on every metered request; revocation goes through this store, which drops the
 * cache entry, and other instances see it within `cacheMs`.
 */
import type { StateBackend } from "./backend.ts";
import type { KeyRecord } from "../schema/keys.ts";

export interface KeysStore {
  get(hash: string): Promise<KeyRecord | null>;
  put(record: KeyRecord): Promise<void>;
  /** Deletes a record nobody was ever given (a trial key that lost its agent's slot). */
  remove(hash: string): Promise<void>;
  listByAccount(account: string): Promise<KeyRecord[]>;
  list(filter: { label?: string }): Promise<KeyRecord[]>;
}

export function createKeysStore(backend: StateBackend, options: { cacheMs?: number; now?: () => number } = {}): KeysStore {
  const cacheMs = options.cacheMs ?? 1000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { record: KeyRecord | null; until: number }>();

  return {
    async get(hash) {
      const hit = cache.get(hash);
      if (hit && hit.until > now()) return hit.record;
      const record = (await backend.records.getItem<KeyRecord>(`keys:${hash}`)) ?? null;
      // Unknown keys are not cached: a key created on another instance must work at once.
      if (record) {
        if (cache.size > 50_000) cache.clear();
        cache.set(hash, { record, until: now() + cacheMs });
      }
      return record;
    },
    async put(record) {
      await backend.records.setItem(`keys:${record.hash}`, record);
      // One record per (account, key) instead of a list: concurrent issuance never loses an entry.
      if (record.account) await backend.records.setItem(`accounts:${_accountKey(record.account)}:${record.hash}`, 1);
      cache.delete(record.hash);
    },
    async remove(hash) {
      await backend.records.removeItem(`keys:${hash}`);
      cache.delete(hash);
    },
    async listByAccount(account) {
      const prefix = `accounts:${_accountKey(account)}:`;
      const hashes = (await backend.records.getKeys(prefix)).map((k) => k.slice(k.lastIndexOf(":") + 1));
      const records = await Promise.all(hashes.map((h) => backend.records.getItem<KeyRecord>(`keys:${h}`)));
      return records.filter((r): r is KeyRecord => r !== null);
    },
    async list(filter) {
      const keys = await backend.records.getKeys("keys");
      const records = await Promise.all(keys.map((k) => backend.records.getItem<KeyRecord>(k)));
      return records
        .filter((r): r is KeyRecord => r !== null && (filter.label === undefined || r.label === filter.label))
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },
  };
}

// --- Internal helpers ---

/** Account names are user input: hex-encode them so no separator or path trick reaches the store. */
function _accountKey(account: string): string {
  return Buffer.from(account.toLowerCase(), "utf8").toString("hex");
}
