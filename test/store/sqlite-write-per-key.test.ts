/**
 * What a metered request writes to the embedded store grows with the number of keys in a batch:
 * with one key a batch rewrites one row, with a different key per request it rewrites one row,
 * and so one page, per request. A profile of 10,000 keys in turn put most of the difference
 * between one key and many in those page writes (the commit's WAL frames and the checkpoint's
 * copies), so this holds the bytes each request adds to the WAL, not a time.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { planWindows } from "../../runtime/metering/quota.ts";
import type { Limits } from "../../runtime/schema/catalog.ts";
import { membershipRecord } from "../helpers/key-record.ts";
import { createSqliteBackend, PAGE_SIZE } from "../../runtime/storage/sqlite-backend.ts";

const NOW = Date.UTC(2026, 10, 26, 12, 30);
const HUGE = 1e9;
const LIMITS = {
  per_key_monthly: HUGE,
  hourly_rate_limit: HUGE,
  daily_standard: HUGE,
  daily_scale: HUGE,
  volume_monthly_5_keys: HUGE,
  trial_calls: HUGE,
} as Limits;
/** A WAL frame is a page plus a 24-byte header; the file starts with a 32-byte header. */
const FRAME_HEADER = 24;

/** The windows of a membership key whose id is spread over the table as the service's are (a digest prefix). */
function windowsOf(i: number) {
  const id = createHash("sha256").update(`key-${i}`).digest("hex").slice(0, 12);
  return planWindows(membershipRecord(id), LIMITS, NOW);
}

describe("SQLite bytes written per metered request", () => {
  it("stays near one small page per key when every request of a batch has a key of its own", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-wal-"));
    const file = join(dataDir, "state.sqlite");
    const backend = createSqliteBackend({ dataDir });
    const peek = new Database(file);
    try {
      // 2,000 keys with counters, so 64 keys taken at random rarely share a page.
      for (let start = 0; start < 2000; start += 100)
        await Promise.all(Array.from({ length: 100 }, (_, i) => backend.consume(windowsOf(start + i), 1, NOW)));
      peek.pragma("wal_checkpoint(TRUNCATE)");
      expect(statSync(`${file}-wal`).size).toBe(0);

      // One batch (one transaction): 64 requests, each with a different key already counted.
      const batch = Array.from({ length: 64 }, (_, i) => windowsOf(i * 31));
      const results = await Promise.all(batch.map((w) => backend.consume(w, 1, NOW)));
      expect(results.every((r) => r.admitted && r.counts[0] === 2)).toBe(true);

      const wal = statSync(`${file}-wal`).size;
      const frames = (wal - 32) / (PAGE_SIZE + FRAME_HEADER);
      // Each request rewrites its key's row: about one page each, and never more than two
      // (a leaf split now and then); the bytes per request are bounded by the page size, 1 KiB.
      expect(frames).toBeGreaterThanOrEqual(32);
      expect(frames).toBeLessThanOrEqual(64 * 2);
      expect(wal / batch.length).toBeLessThanOrEqual(1.5 * 1024);
    } finally {
      peek.close();
      await backend.close();
    }
  });

  it("writes one page for a whole batch of requests on one key", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-wal-"));
    const file = join(dataDir, "state.sqlite");
    const backend = createSqliteBackend({ dataDir });
    const peek = new Database(file);
    try {
      await backend.consume(windowsOf(1), 1, NOW);
      peek.pragma("wal_checkpoint(TRUNCATE)");
      await Promise.all(Array.from({ length: 64 }, () => backend.consume(windowsOf(1), 1, NOW)));
      const hour = windowsOf(1)[0]!;
      expect((await backend.readCounters([hour.key], NOW, [hour.row]))[0]).toBe(65);
      expect((statSync(`${file}-wal`).size - 32) / (PAGE_SIZE + FRAME_HEADER)).toBeLessThanOrEqual(2);
    } finally {
      peek.close();
      await backend.close();
    }
  });
});
