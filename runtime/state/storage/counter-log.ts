/**
 * The counter log of the embedded store: how a batch of quota checks is made durable with a few
 * pages written instead of one page per key.
 *
 * Each key's counters are a row of their own (counter-rows.ts), and rows of different keys sit on
 * different pages, so a batch of 64 requests with 64 keys used to rewrite 64 pages, and SQLite
 * writes each page to the WAL with syscalls of its own. Now a batch appends ONE log entry holding
 * the new state of every row it changed (a few pages, always at the end of the table), and rows
 * are folded into `counter_rows` later, a few per batch, in the same transactions. A row written
 * again before its turn in a fold is skipped, because its newer state is in a later entry: with
 * many keys in turn each row is folded once for several requests, and one hot key never is.
 *
 * What always holds (the whole correctness argument): the newest state of a row is its newest
 * entry in the log if it has one, else its row in `counter_rows`. Entries are deleted only as a
 * prefix (every entry up to a sequence number), and only once every row whose newest entry lies
 * in that prefix was written to `counter_rows`. So `replay`, applying every entry left in order,
 * last one wins, yields the newest state of every row, after a crash as after another process's
 * commits; and an entry is either committed with its batch or not at all, like the rows it holds.
 *
 * Generations: entries appended since the last fold began form the current generation. When it
 * holds GENERATION_ENTRIES entries, its rows become the fold's, a new generation begins, and each
 * following batch writes up to `perBatch` of the fold's rows (those not written again since);
 * when all are done, the log is cut up to the fold's last entry. So the log holds at most
 * GENERATION_ENTRIES + FOLD_BATCHES entries: with a key per request and batches of 64, about
 * 12 MB, which a replay (after a crash, or once after the CLI wrote to the file) takes about
 * 0.2 s to apply.
 */
import type Database from "better-sqlite3";

/** A row's new state as written by a batch: its encoded cells, or null when it is empty (deleted). */
export type RowState = { text: string; expiresAt: number } | null;

export interface CounterLog {
  /**
   * Appends one entry with the rows a batch changed and folds a few older rows, whose state is
   * asked of `stateOf` (the newest, this batch's included); in the batch's transaction.
   */
  append(rows: Iterable<[string, RowState]>, stateOf: (row: string) => RowState): void;
  /**
   * Applies every entry left into `counter_rows` and empties the log; under the write lock.
   * Called when this process's view of the rows can't be trusted (another connection committed,
   * a batch rolled back, the copy was dropped), and at close, so a clean stop leaves no log.
   */
  replay(): void;
}

/** Entries in a generation before its rows are folded. */
const GENERATION_ENTRIES = 1024;

/** A fold finishes within this many batches, however many rows it holds. */
const FOLD_BATCHES = 256;

/**
 * The log's sizes, GENERATION_ENTRIES and FOLD_BATCHES unless given. A server keeps the defaults;
 * the store's tests give smaller ones, so that a generation, its fold and its cut (the same code)
 * take a few hundred batches instead of thousands.
 */
export interface CounterLogSizes {
  generationEntries?: number;
  foldBatches?: number;
}

export function createCounterLog(db: Database.Database, sizes: CounterLogSizes = {}): CounterLog {
  const generationEntries = sizes.generationEntries ?? GENERATION_ENTRIES;
  const foldBatches = sizes.foldBatches ?? FOLD_BATCHES;
  db.exec("create table if not exists counter_log (seq integer primary key, entry text not null)");
  const q = {
    append: db.prepare<[string]>("insert into counter_log (entry) values (?)"),
    all: db.prepare<[], string>("select entry from counter_log order by seq").pluck(),
    cut: db.prepare<[number]>("delete from counter_log where seq <= ?"),
    clear: db.prepare("delete from counter_log"),
    rowSet: db.prepare(
      "insert into counter_rows (row, cells, expires_at) values (?, ?, ?) on conflict(row) do update set cells = excluded.cells, expires_at = excluded.expires_at",
    ),
    rowDel: db.prepare("delete from counter_rows where row = ?"),
  };
  const write = (row: string, state: RowState) => {
    if (state) q.rowSet.run(row, state.text, state.expiresAt);
    else q.rowDel.run(row);
  };

  // Rows of the current generation. Names only: their states are asked for when folded, since
  // keeping each entry's states until then made them outlive the young generation of the heap,
  // and collecting them cost more than the pages the log saves.
  let current = new Set<string>();
  let entries = 0;
  // The fold under way: its rows, how far it got, and the last entry it covers.
  let fold: { rows: string[]; next: number; upTo: number; perBatch: number } | null = null;

  const foldSome = (stateOf: (row: string) => RowState) => {
    if (fold === null) return;
    const end = Math.min(fold.rows.length, fold.next + fold.perBatch);
    for (; fold.next < end; fold.next++) {
      const row = fold.rows[fold.next]!;
      // Written again since: its newer entry stays in the log, and the next fold writes it.
      if (!current.has(row)) write(row, stateOf(row));
    }
    if (fold.next === fold.rows.length) {
      q.cut.run(fold.upTo);
      fold = null;
    }
  };

  return {
    append(rows, stateOf) {
      let text = "";
      for (const [row, state] of rows) {
        text += `${text === "" ? "[" : ","}[${JSON.stringify(row)},${state ? `${state.text},${state.expiresAt}` : "null,0"}]`;
        current.add(row);
      }
      if (text === "") return;
      const seq = Number(q.append.run(`${text}]`).lastInsertRowid);
      if (++entries >= generationEntries && fold === null) {
        const rows = [...current];
        fold = { rows, next: 0, upTo: seq, perBatch: Math.max(1, Math.ceil(rows.length / foldBatches)) };
        current = new Set();
        entries = 0;
      }
      foldSome(stateOf);
    },
    replay() {
      const newest = new Map<string, RowState>();
      for (const entry of q.all.iterate()) {
        for (const [row, cells, expiresAt] of JSON.parse(entry) as Array<[string, unknown[] | null, number]>) {
          newest.set(row, cells === null ? null : { text: JSON.stringify(cells), expiresAt });
        }
      }
      for (const [row, state] of newest) write(row, state);
      q.clear.run();
      current = new Set();
      entries = 0;
      fold = null;
    },
  };
}
