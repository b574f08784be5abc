/**
 * The counter log of the embedded store (runtime/state/storage/counter-log.ts): a batch's counts are
 * durable in one log entry and folded into counter_rows later. What must hold: nothing counted
 * is lost when the process dies with the log unfolded, in the middle of a fold included; a
 * batch that fails counts nothing, in the log or in the copy the process keeps; and two
 * connections to one file, each logging, folding and replaying the other's entries, admit
 * exactly what a plain model of the counts admits.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { CounterWindow } from "../../runtime/state/storage/backend.ts";
import { createSqliteBackend } from "../../runtime/state/storage/sqlite-backend.ts";
import { numberedKeyWindows } from "../helpers/numbered-key-windows.ts";
import { seededRandom, seedFrom } from "../helpers/seeded-random.ts";

const NOW = Date.UTC(2026, 10, 27, 12, 30);
const SEED = seedFrom(process.env.COUNTER_LOG_SEED);
/**
 * The log's sizes in these cases: an eighth of a server's (1,024 entries a generation, folds within
 * 256 batches), so that a generation, its fold and its cut, the same code, take hundreds of batches
 * instead of thousands. Every count below is in proportion to them.
 */
const GENERATION = 128;
const FOLD = 32;
const SIZES = { counterLog: { generationEntries: GENERATION, foldBatches: FOLD } };

describe("SQLite counter log", () => {
  it("keeps every count of a process killed with SIGKILL while a fold of the log was under way", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-log-"));
    const KEYS = 3000;
    // A generation is GENERATION entries (one per batch, every key in it); a fold then takes up to
    // FOLD batches. Killed 12 batches into the first fold: some rows are folded, the rest only in the log.
    const BATCHES = GENERATION + 12;
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "test/helpers/counter-log-writer.ts",
        dataDir,
        String(KEYS),
        String(BATCHES),
        String(NOW),
        String(GENERATION),
        String(FOLD),
      ],
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

    const backend = createSqliteBackend({ dataDir, ...SIZES });
    const total = BATCHES * 64;
    const countOf = (i: number) => Math.floor(total / KEYS) + (i < total % KEYS ? 1 : 0);
    try {
      for (let i = 0; i < KEYS; i++) {
        const [hour, , month] = numberedKeyWindows(i, NOW);
        expect(await backend.readCounters([hour!.key, month!.key], NOW, [hour!.row, month!.row])).toEqual([countOf(i), countOf(i)]);
      }
      // And counting goes on from there, exactly.
      expect((await backend.consume(numberedKeyWindows(0, NOW), 1, NOW)).counts).toEqual([countOf(0) + 1, countOf(0) + 1, countOf(0) + 1]);
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
      for (let i = 0; i < 3; i++) await backend.consume(numberedKeyWindows(7, NOW, 10), 1, NOW);
      // One batch: two good requests on key 7 first, which the copy counts, then one that throws.
      const batch = await Promise.allSettled([
        backend.consume(numberedKeyWindows(7, NOW, 10), 1, NOW),
        backend.consume(numberedKeyWindows(7, NOW, 10), 1, NOW),
        backend.consume(poisoned, 1, NOW),
      ]);
      expect(batch.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
      const [hour] = numberedKeyWindows(7, NOW);
      expect(await backend.readCounters([hour!.key], NOW, [hour!.row])).toEqual([3]);
      const results = await Promise.all(Array.from({ length: 12 }, () => backend.consume(numberedKeyWindows(7, NOW, 10), 1, NOW)));
      expect(results.filter((r) => r.admitted)).toHaveLength(7);
    } finally {
      await backend.close();
    }
    const again = createSqliteBackend({ dataDir });
    const [hour] = numberedKeyWindows(7, NOW);
    expect(await again.readCounters([hour!.key], NOW, [hour!.row])).toEqual([10]);
    await again.close();
  });

  it(`admits exactly what a model admits, over two connections to one file, folds, cuts and reopenings (seed ${SEED}, COUNTER_LOG_SEED)`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-log-"));
    const random = seededRandom(SEED);
    const KEYS = 300;
    // The first 40 keys fill their hour (denials, batches that change nothing); the rest never do,
    // so nearly every batch appends an entry and generations fill.
    const limitOf = (k: number) => (k < 40 ? 30 : 1e9);
    const model = new Map<number, number>();
    const clients = [createSqliteBackend({ dataDir, ...SIZES }), createSqliteBackend({ dataDir, ...SIZES })];
    // In a server's sizes: 1,300 batches first, runs of 1,000 to 1,400, 4,000 in all.
    const FIRST = GENERATION + FOLD + 8;
    try {
      let client = 0;
      let run = FIRST;
      // First, FIRST batches on one connection: a generation (GENERATION batches), then its fold
      // and cut (within FOLD batches), during which only the first 100 keys are used, so the other
      // rows must be folded from it. Then runs of batches on either connection, now and then long
      // enough for another generation; each switch makes the other connection replay what this
      // one logged, and now and then a connection is closed and opened again.
      for (let step = 0; step < GENERATION * 4; step++) {
        if (run-- <= 0) {
          client = random.int(0, 1);
          run = random.next() < 0.3 ? random.int(GENERATION - 3, GENERATION + 48) : random.int(1, 20);
        }
        const keyRange = step >= GENERATION && step < FIRST ? 100 : KEYS;
        if (step >= FIRST && random.next() < 0.016) {
          await clients[client]!.close();
          clients[client] = createSqliteBackend({ dataDir, ...SIZES });
        }
        const keys = Array.from({ length: random.int(1, 64) }, () => random.int(0, keyRange - 1));
        const results = await Promise.all(keys.map((k) => clients[client]!.consume(numberedKeyWindows(k, NOW, limitOf(k)), 1, NOW)));
        keys.forEach((k, i) => {
          const before = model.get(k) ?? 0;
          expect(results[i]!.admitted, `step ${step}, key ${k} at ${before}`).toBe(before < limitOf(k));
          if (before < limitOf(k)) model.set(k, before + 1);
        });
      }
      const read = async (backend: (typeof clients)[number]) => {
        const counts: number[] = [];
        for (let k = 0; k < KEYS; k++) {
          const [hour] = numberedKeyWindows(k, NOW);
          counts.push((await backend.readCounters([hour!.key], NOW, [hour!.row]))[0]!);
        }
        return counts;
      };
      const expected = Array.from({ length: KEYS }, (_, k) => model.get(k) ?? 0);
      expect(await read(clients[0]!)).toEqual(expected);
      expect(await read(clients[1]!)).toEqual(expected);
      await Promise.all(clients.map((c) => c.close()));
      clients.length = 0;
      const again = createSqliteBackend({ dataDir, ...SIZES });
      expect(await read(again)).toEqual(expected);
      await again.close();
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  }, 120_000);
});
