/**
 * The key cache by revision, with many keys: a key's record is read from the store once, not
 * once per cache period, and a change made through another store on the same state (another
 * instance, the CLI) is still seen within the cache period.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { KeyRecord } from "../../runtime/shared/schema/keys.ts";
import { createKeysStore } from "../../runtime/state/storage/keys-store.ts";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { membershipRecord } from "../helpers/key-record.ts";

const CACHE_MS = 40;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const record = (hash: string): KeyRecord => membershipRecord(hash.slice(0, 12), hash);

describe("keys store cache", () => {
  it("reads a record once while nothing changes, and sees another store's revocation within the period", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-keys-cache-"));
    const backend = createSqliteBackend({ dataDir });
    const other = createSqliteBackend({ dataDir }); // a second instance on the same file
    try {
      let reads = 0;
      const getItem = backend.records.getItem.bind(backend.records);
      backend.records.getItem = ((key: string, ...rest: unknown[]) => {
        if (key.startsWith("keys:")) reads++;
        return (getItem as (...a: unknown[]) => unknown)(key, ...rest);
      }) as typeof backend.records.getItem;
      const keys = createKeysStore(backend, { cacheMs: CACHE_MS });
      const admin = createKeysStore(other, { cacheMs: CACHE_MS });
      const hash = "a".repeat(64);
      await admin.put(record(hash));

      for (let i = 0; i < 4; i++) {
        expect((await keys.get(hash))?.status).toBe("active");
        await pause(CACHE_MS * 2);
      }
      expect(reads).toBe(1);
      // The same object each time, so what is derived from it (the quota plan) stays cached too.
      expect(await keys.get(hash)).toBe(await keys.get(hash));

      await admin.put({ ...record(hash), status: "revoked" });
      await pause(CACHE_MS * 2);
      expect((await keys.get(hash))?.status).toBe("revoked");
    } finally {
      await backend.close();
      await other.close();
    }
  });

  it("answers without reading only within the period after a check, and never after its own change", async () => {
    const backend = createSqliteBackend({ dataDir: ":memory:" });
    try {
      const keys = createKeysStore(backend, { cacheMs: CACHE_MS });
      const hash = "b".repeat(64);
      await keys.put(record(hash));
      expect(keys.cached(hash)).toBeUndefined(); // its own write: the next read checks the revision first
      const read = await keys.get(hash);
      expect(keys.cached(hash)).toBe(read);
      await pause(CACHE_MS * 2);
      expect(keys.cached(hash)).toBeUndefined(); // the period is over: another instance may have revoked it
      await keys.get(hash);
      expect(keys.cached(hash)).toBe(read);
      await keys.put({ ...record(hash), status: "revoked" });
      expect(keys.cached(hash)).toBeUndefined();
      expect((await keys.get(hash))?.status).toBe("revoked");
      expect(keys.cached(hash)?.status).toBe("revoked");
    } finally {
      await backend.close();
    }
  });
});
