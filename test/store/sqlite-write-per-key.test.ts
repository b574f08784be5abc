/**
 * What a metered request writes to the embedded store must not grow with the number of keys in a
 * batch. Each key's counters are a row of their own, on a page of their own, so a batch of
 * requests with a key each once rewrote one page per request, and a profile of 10,000 keys in
 * turn put most of the difference between one key and many in those page writes. A batch now
 * appends one entry to the counter log and folds a few rows (runtime/state/storage/counter-log.ts), so
 * this holds the pages each request adds to the WAL, not a time.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { numberedKeyWindows } from "../helpers/numbered-key-windows.ts";

const NOW = Date.UTC(2026, 10, 26, 12, 30);

/**
 * WAL frames (pages) written by `work`. A PASSIVE checkpoint that copies the whole WAL lets the
 * next writer start it again from its first frame, so the frame count the second one reports is
 * what `work` wrote. (A TRUNCATE checkpoint would do too, but it counts as another connection's
 * change and makes the store replay its log.)
 */
async function framesOf(peek: Database.Database, work: () => Promise<unknown>): Promise<number> {
  const [before] = peek.pragma("wal_checkpoint(PASSIVE)") as Array<{ busy: number; log: number; checkpointed: number }>;
  expect(before!.checkpointed).toBe(before!.log);
  await work();
  const [after] = peek.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
  return after!.log;
}

describe("SQLite bytes written per metered request", () => {
  it("writes a few pages for a batch of requests with a key each, and well under a page per request over many batches", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-wal-"));
    // As a server runs it: checkpoints on a worker, here one that waits an hour, so this test's
    // own checkpoints say how many frames each step wrote.
    const backend = createSqliteBackend({ dataDir, onCheckpointError: () => {}, checkpointIntervalMs: 3_600_000 });
    const peek = new Database(join(dataDir, "state.sqlite"));
    const KEYS = 10_000;
    const plans = Array.from({ length: KEYS }, (_, i) => numberedKeyWindows(i, NOW));
    let next = 0;
    const batch = () => Promise.all(Array.from({ length: 64 }, () => backend.consume(plans[next++ % KEYS]!, 1, NOW)));
    try {
      // Every key counted once, so 64 keys taken in turn rarely share a page of counter_rows.
      while (next < KEYS) await batch();
      // One batch (one transaction), 64 requests with a key each: one log entry of ~64 × 150 bytes.
      // Before the log, this wrote 64 pages or more.
      const one = await framesOf(peek, batch);
      expect(one).toBeGreaterThanOrEqual(5);
      expect(one).toBeLessThanOrEqual(16);

      // 4,000 batches: 25 passes over the keys and several folds of the log into the rows.
      // Before the log, about 1.1 pages a request.
      let frames = 0;
      for (let i = 0; i < 40; i++)
        frames += await framesOf(peek, () =>
          (async () => {
            for (let j = 0; j < 100; j++) await batch();
          })(),
        );
      const perRequest = frames / (4000 * 64);
      expect(perRequest).toBeLessThanOrEqual(0.5);

      // Every count is where the store reads it, and where a reopened store does.
      const hour = plans[123]![0]!;
      const expected = Math.ceil((next - 123) / KEYS);
      expect((await backend.readCounters([hour.key], NOW, [hour.row]))[0]).toBe(expected);
      await backend.close();
      const again = createSqliteBackend({ dataDir });
      expect((await again.readCounters([hour.key], NOW, [hour.row]))[0]).toBe(expected);
      await again.close();
    } finally {
      peek.close();
      await backend.close();
    }
  });

  it("writes one page for a whole batch of requests on one key", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-wal-"));
    const backend = createSqliteBackend({ dataDir });
    const peek = new Database(join(dataDir, "state.sqlite"));
    try {
      await backend.consume(numberedKeyWindows(1, NOW), 1, NOW);
      const frames = await framesOf(peek, () =>
        Promise.all(Array.from({ length: 64 }, () => backend.consume(numberedKeyWindows(1, NOW), 1, NOW))),
      );
      const hour = numberedKeyWindows(1, NOW)[0]!;
      expect((await backend.readCounters([hour.key], NOW, [hour.row]))[0]).toBe(65);
      expect(frames).toBeLessThanOrEqual(2);
    } finally {
      peek.close();
      await backend.close();
    }
  });
});
