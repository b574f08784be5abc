/**
 * The server's store checkpoints its WAL on a worker thread: a commit never copies the WAL into the
 * database file (that, with its fsyncs, used to stall the event loop every ~15 quota batches with
 * many keys), and the copy still happens, so the WAL does not grow without end.
 */
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { StateBackend } from "../../runtime/state/storage/backend.ts";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";

/** Well past SQLite's automatic checkpoint (1,000 pages): 80,000 distinct counters in 80 commits. */
async function fill(backend: StateBackend): Promise<void> {
  for (let batch = 0; batch < 80; batch++) {
    const windows = Array.from({ length: 1000 }, (_, i) => ({
      key: `q:${batch}:${i}:${"x".repeat(40)}`,
      limit: 10,
      expiresAt: Date.now() + 3_600_000,
    }));
    await backend.consume(windows, 1, Date.now());
  }
}

it("never copies the WAL into the database file inside a commit", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-ckpt-"));
  const errors: string[] = [];
  // The worker's first copy would come after an hour: any copy seen here was made by a commit.
  const backend = createSqliteBackend({ dataDir, onCheckpointError: (m) => errors.push(m), checkpointIntervalMs: 3_600_000 });
  const file = join(dataDir, "state.sqlite");
  try {
    const sizeBefore = statSync(file).size;
    await fill(backend);
    expect(statSync(file).size).toBe(sizeBefore);
    expect(errors).toEqual([]);
  } finally {
    await backend.close();
  }
});

it("copies the WAL into the database file on the worker, shortly after the commits", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-ckpt-"));
  const errors: string[] = [];
  const backend = createSqliteBackend({ dataDir, onCheckpointError: (m) => errors.push(m) });
  const file = join(dataDir, "state.sqlite");
  try {
    const sizeBefore = statSync(file).size;
    await fill(backend);
    const deadline = Date.now() + 15_000;
    while (statSync(file).size < sizeBefore + 1_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(statSync(file).size).toBeGreaterThan(sizeBefore + 1_000_000);
    expect(errors).toEqual([]);
    const [n] = await backend.readCounters([`q:79:999:${"x".repeat(40)}`], Date.now());
    expect(n).toBe(1);
  } finally {
    await backend.close();
  }
});
