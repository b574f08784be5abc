/**
 * The embedded store packs the windows of one key into one row (runtime/state/storage/counter-rows.ts).
 * What must hold: counts carried over from the earlier one-row-per-counter layout, one row written
 * per key and batch, old windows forgotten, and keys made of request data kept apart.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { type Cell, decodeCells, encodeCells, legacyRowOf } from "../../runtime/state/storage/counter-rows.ts";
import { createSqliteBackend, STATE_LAYOUT } from "../../runtime/state/storage/sqlite-backend.ts";

const NOW = Date.UTC(2026, 10, 26, 12);
const HOUR = 3_600_000;
const DAY = 86_400_000;

function windows(id: string, now: number) {
  const row = `q:{k:${id}}:${id}`;
  return [
    { key: `${row}:h:${Math.floor(now / HOUR)}`, row, limit: 100, expiresAt: Math.floor(now / HOUR) * HOUR + HOUR },
    { key: `${row}:d:${Math.floor(now / DAY)}`, row, limit: 1000, expiresAt: Math.floor(now / DAY) * DAY + DAY },
    { key: `${row}:m:life`, row, limit: Number.POSITIVE_INFINITY, expiresAt: Number.MAX_SAFE_INTEGER },
  ];
}

describe("SQLite counter rows", () => {
  it("encodes a row as the JSON of its live cells, whatever the suffixes hold, and decodes it back", () => {
    const row = "q:{k}:abc";
    const suffixes = [":h:2026112710", ':"quoted"\\', ":ünï\u2028", "__proto__", ""];
    const cells = new Map<string, Cell>(suffixes.map((s, i) => [row + s, { n: i * 1000 + 7, expiresAt: 1_764_241_200_000 + i }]));
    cells.set(`${row}:old`, { n: 3, expiresAt: 10 });
    const packed = encodeCells(row, cells, 100);
    const live = suffixes.map((s, i) => [s, i * 1000 + 7, 1_764_241_200_000 + i]);
    expect(packed).toEqual({ text: JSON.stringify(live), expiresAt: 1_764_241_200_004 });
    expect(cells.has(`${row}:old`)).toBe(false); // forgotten in the copy too
    expect(decodeCells(row, packed!.text)).toEqual(cells);
    expect(encodeCells(row, new Map([[`${row}:x`, { n: 1, expiresAt: 5 }]]), 100)).toBeNull();
  });

  it("groups the keys of the one-row-per-counter layout by owner for quota windows, a row per key for every other counter", () => {
    expect(legacyRowOf("q:{k:abc}:abc:h:123")).toBe("q:{k:abc}:abc");
    expect(legacyRowOf("q:{k:abc}:abc:t")).toBe("q:{k:abc}:abc");
    expect(legacyRowOf("q:{a:6869}:pool:m:life")).toBe("q:{a:6869}:pool");
    expect(legacyRowOf("payledger:jti-1")).toBe("payledger:jti-1");
    expect(legacyRowOf("q:{broken")).toBe("q:{broken");
    expect(legacyRowOf("q:{k:abc}:abc")).toBe("q:{k:abc}:abc");
  });

  it("writes the windows of one key as one row, and forgets windows a day after they expired", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-rows-"));
    // Rows as a clean stop leaves them: every count folded from the log into counter_rows.
    const storedRows = () => {
      const peek = new Database(join(dataDir, "state.sqlite"), { readonly: true });
      try {
        expect(peek.prepare("select count(*) from counter_log").pluck().get()).toBe(0);
        return peek.prepare("select row, cells from counter_rows").all() as Array<{ row: string; cells: string }>;
      } finally {
        peek.close();
      }
    };
    const first = createSqliteBackend({ dataDir });
    for (let i = 0; i < 3; i++) expect((await first.consume(windows("abc", NOW), 1, NOW)).counts).toEqual([i + 1, i + 1, i + 1]);
    await first.close();
    const rows = storedRows();
    expect(rows.map((r) => r.row)).toEqual(["q:{k:abc}:abc"]);
    expect(JSON.parse(rows[0]!.cells)).toHaveLength(3);

    // Two days on: the old hour and day windows are gone from the row, the lifetime one stays.
    const later = NOW + 2 * DAY;
    const second = createSqliteBackend({ dataDir });
    expect((await second.consume(windows("abc", later), 1, later)).counts).toEqual([1, 1, 4]);
    const old = windows("abc", NOW);
    expect(
      await second.readCounters(
        old.map((w) => w.key),
        NOW,
        old.map((w) => w.row),
      ),
    ).toEqual([0, 0, 4]);
    await second.close();
    const cells = JSON.parse(storedRows()[0]!.cells) as Array<[string, number, number]>;
    expect(cells.map(([suffix]) => suffix).sort()).toEqual(
      [`:d:${Math.floor(later / DAY)}`, `:h:${Math.floor(later / HOUR)}`, ":m:life"].sort(),
    );
  });

  it("keeps counts written by the earlier one-row-per-counter layout", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-rows-"));
    const old = new Database(join(dataDir, "state.sqlite"));
    old.exec("create table counters (key text primary key, n integer not null, expires_at integer not null) without rowid");
    const put = old.prepare("insert into counters values (?, ?, ?)");
    for (const w of windows("abc", NOW)) put.run(w.key, 99, w.expiresAt);
    put.run("payledger:jti-1", 5_000, NOW + DAY);
    old.close();

    const backend = createSqliteBackend({ dataDir });
    try {
      expect(await backend.readCounters(["payledger:jti-1"], NOW)).toEqual([5_000]);
      // The hour window allows 100: the 99 carried over leave room for one call.
      expect((await backend.consume(windows("abc", NOW), 1, NOW)).counts).toEqual([100, 100, 100]);
      expect((await backend.consume(windows("abc", NOW), 1, NOW)).admitted).toBe(false);
    } finally {
      await backend.close();
    }
    const after = new Database(join(dataDir, "state.sqlite"), { readonly: true });
    expect(after.prepare("select name from sqlite_master where name = 'counters'").get()).toBeUndefined();
    expect(after.pragma("user_version", { simple: true })).toBe(STATE_LAYOUT);
    after.close();
  });

  it("records its layout in a new file, and refuses a file of a later layout without touching it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-rows-"));
    const file = join(dataDir, "state.sqlite");
    const first = createSqliteBackend({ dataDir });
    await first.consume(windows("abc", NOW), 1, NOW);
    await first.close();
    const raw = new Database(file);
    expect(raw.pragma("user_version", { simple: true })).toBe(STATE_LAYOUT);
    // As a newer version would leave it.
    raw.pragma(`user_version = ${STATE_LAYOUT + 1}`);
    raw.close();

    expect(() => createSqliteBackend({ dataDir })).toThrow(
      new RegExp(`state layout ${STATE_LAYOUT + 1}, written by a newer version.*reads up to layout ${STATE_LAYOUT}`),
    );
    const after = new Database(file, { readonly: true });
    expect(after.pragma("user_version", { simple: true })).toBe(STATE_LAYOUT + 1);
    expect(JSON.parse(after.prepare("select cells from counter_rows").pluck().get() as string)).toHaveLength(3);
    after.close();
  });

  it("keeps a counter without a declared row in a row of its own, whatever its key looks like", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "vkr-rows-"));
    const backend = createSqliteBackend({ dataDir });
    await backend.consume(
      windows("abc", NOW).map(({ row: _row, ...w }) => w),
      1,
      NOW,
    );
    await backend.close();
    const peek = new Database(join(dataDir, "state.sqlite"), { readonly: true });
    expect((peek.prepare("select row from counter_rows").pluck().all() as string[]).sort()).toEqual(
      windows("abc", NOW)
        .map((w) => w.key)
        .sort(),
    );
    peek.close();
  });

  it("keeps counters whose names come from request data apart, __proto__ and constructor included", async () => {
    const backend = createSqliteBackend({ dataDir: ":memory:" });
    try {
      const w = (key: string) => [{ key, limit: 2, expiresAt: NOW + HOUR }];
      for (const key of ["q:{k:__proto__}:__proto__:h:1", "q:{k:__proto__}:__proto__:constructor", "__proto__", "constructor"]) {
        expect((await backend.consume(w(key), 2, NOW)).admitted).toBe(true);
        expect((await backend.consume(w(key), 1, NOW)).admitted).toBe(false);
      }
      expect(await backend.readCounters(["q:{k:__proto__}:__proto__:h:1", "q:{k:__proto__}:__proto__:toString", "__proto__"], NOW)).toEqual(
        [2, 0, 2],
      );
    } finally {
      await backend.close();
    }
  });
});
