/**
 * The counter log of the embedded store (runtime/storage/counter-log.ts): a batch's counts are
 * durable in one log entry and folded into counter_rows later. What must hold: nothing counted
 * is lost when the process dies with the log unfolded, in the middle of a fold included, and a
 * batch that fails counts nothing, in the log or in the copy the process keeps.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { CounterWindow } from "../../runtime/storage/backend.ts";
import { createSqliteBackend } from "../../runtime/storage/sqlite-backend.ts";
import { counterLogWindows } from "../helpers/counter-log-windows.ts";

const NOW = Date.UTC(2026, 10, 27, 12, 30);

describe("SQLite counter log", () => {
  it("keeps every count of a process killed with SIGKILL while a fold of the log was under way", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-log-"));
    const KEYS = 3000;
    // A generation is 1,024 entries (one per batch); a fold then takes up to 256 batches. Killed
    // 100 batches into the first fold: some rows are folded, the rest only in the log.
    const BATCHES = 1024 + 100;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "test/helpers/counter-log-writer.ts", dataDir, String(KEYS), String(BATCHES), String(NOW)],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (out += d));
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, s) => resolve(s)));
    expect(out).toBe(`counted ${BATCHES * 64}\n`);
    expect(signal).toBe("SIGKILL");

    const peek = new Database(join(dataDir, "state.sqlite"), { readonly: true });
    const logEntries = peek.prepare("select count(*) from counter_log").pluck().get() as number;
    const foldedRows = peek.prepare("select count(*) from counter_rows").pluck().get() as number;
    peek.close();
    expect(logEntries).toBe(BATCHES); // the fold had not finished, so no entry was cut yet
    expect(foldedRows).toBeGreaterThan(0);
    expect(foldedRows).toBeLessThan(KEYS);

    const backend = createSqliteBackend({ dataDir });
    const total = BATCHES * 64;
    const countOf = (i: number) => Math.floor(total / KEYS) + (i < total % KEYS ? 1 : 0);
    try {
      for (let i = 0; i < KEYS; i++) {
        const [hour, , month] = counterLogWindows(i, NOW);
        expect(await backend.readCounters([hour!.key, month!.key], NOW, [hour!.row, month!.row])).toEqual([countOf(i), countOf(i)]);
      }
      // And counting goes on from there, exactly.
      expect((await backend.consume(counterLogWindows(0, NOW), 1, NOW)).counts).toEqual([countOf(0) + 1, countOf(0) + 1, countOf(0) + 1]);
    } finally {
      await backend.close();
    }
  }, 60_000);

  it("counts nothing of a batch that failed: not in the log, not in the copy the next batch reads", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-log-"));
    const backend = createSqliteBackend({ dataDir });
    const poisoned: CounterWindow[] = [
      {
        key: "q:{k:bad}:bad:h",
        expiresAt: NOW + 3_600_000,
        get limit(): number {
          throw new Error("poisoned window");
        },
      },
    ];
    try {
      for (let i = 0; i < 3; i++) await backend.consume(counterLogWindows(7, NOW, 10), 1, NOW);
      // One batch: two good requests on key 7 first, which the copy counts, then one that throws.
      const batch = await Promise.allSettled([
        backend.consume(counterLogWindows(7, NOW, 10), 1, NOW),
        backend.consume(counterLogWindows(7, NOW, 10), 1, NOW),
        backend.consume(poisoned, 1, NOW),
      ]);
      expect(batch.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
      const [hour] = counterLogWindows(7, NOW);
      expect(await backend.readCounters([hour!.key], NOW, [hour!.row])).toEqual([3]);
      const results = await Promise.all(Array.from({ length: 12 }, () => backend.consume(counterLogWindows(7, NOW, 10), 1, NOW)));
      expect(results.filter((r) => r.admitted)).toHaveLength(7);
    } finally {
      await backend.close();
    }
    const again = createSqliteBackend({ dataDir });
    const [hour] = counterLogWindows(7, NOW);
    expect(await again.readCounters([hour!.key], NOW, [hour!.row])).toEqual([10]);
    await again.close();
  });
});
