/**
 * Embedded state on SQLite (better-sqlite3), the default with no external server.
 *
 * Durability: WAL with `synchronous=NORMAL`. A committed transaction is in the WAL file before the
 * call returns, so it survives `kill -9` of the process; only an OS crash or power loss can lose
 * the last transactions (`synchronous=FULL` closes that too at many times the cost per write).
 * unstorage's fs driver is not used: it writes in
 * place without rename or fsync, so a crash can leave a truncated record.
 *
 * Atomicity: better-sqlite3 is synchronous and each primitive runs in one `BEGIN IMMEDIATE`
 * transaction, so it is exact within a process and across processes sharing the file.
 *
 * Group commit: quota checks (`consume`, one per metered request) that arrive in the same event-loop
 * turn run one after another inside ONE transaction, and every caller is answered only after it
 * committed. Each check still sees the ones before it, so admission stays exact, and nothing is
 * acknowledged before it is durable; the per-transaction cost is shared by the whole batch.
 *
 * Counter cache: the batch reads counters from an in-process copy and appends each touched row,
 * with its final values, to ONE entry of the counter log before the commit; rows are folded from
 * the log into `counter_rows` later, a few per batch (counter-log.ts). The copy is trusted only
 * while `PRAGMA data_version` (read under the write lock) says no other connection committed
 * since; otherwise the log is replayed into the rows and the copy dropped, so processes sharing
 * the file (the CLI, a second server) stay exact (what it saved: docs/performance.md, "Figures
 * behind design choices").
 *
 * Counter rows: the windows of one key (hour, day, month), which name their row
 * (`CounterWindow.row`, metering/windows.ts), are packed into ONE row per owner (see
 * counter-rows.ts), so a request with a key of its own changes one row, not three.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { createStorage, defineDriver } from "unstorage";
import { type ConsumeResult, type CounterWindow, EXPIRED_COUNTER_KEPT_MS, type InsertOnceResult, type StateBackend } from "./backend.ts";
import { type CounterLogSizes, createCounterLog, type RowState } from "./counter-log.ts";
import { type Cell, decodeCells, encodeCells, legacyRowOf } from "./counter-rows.ts";
import { startCheckpointer } from "./sqlite-checkpointer.ts";

export interface SqliteBackendOptions {
  /** Folder for `state.sqlite`; `:memory:` for a throwaway store. */
  dataDir: string;
  /**
   * Set by a long-running server: WAL checkpoints then run on a worker thread (sqlite-checkpointer.ts)
   * instead of inside a commit on the event loop, and their failures are reported here.
   */
  onCheckpointError?: (message: string) => void;
  /** How often the worker checkpoints (default 500 ms); tests lengthen it to tell its copies from a commit's. */
  checkpointIntervalMs?: number;
  /** The counter log's generation and fold sizes (counter-log.ts); a server keeps the defaults, tests shrink them. */
  counterLog?: CounterLogSizes;
}

export function createSqliteBackend(options: SqliteBackendOptions): StateBackend {
  const file = options.dataDir === ":memory:" ? ":memory:" : _prepareFile(options.dataDir);
  const db = new Database(file);
  // Before WAL, so a new file takes it (an existing file keeps its own size): a metered request
  // with a key of its own rewrites that key's counter row, and each such row sits on a page of its
  // own in a batch, so every commit copies one whole page per key into the WAL, and the checkpoint
  // copies it again. Counter rows are ~150 bytes, so 1 KiB pages write a quarter of the bytes per
  // key that the 4 KiB default did (test/store/sqlite-write-per-key.test.ts).
  db.pragma(`page_size = ${PAGE_SIZE}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  // The default page cache (2 MB) holds a few thousand keys' counters and records; beyond that
  // every quota upsert faulted pages in from the OS (10,000 keys in turn). 64 MB is an upper bound:
  // SQLite only uses what the file needs.
  db.pragma("cache_size = -65536");
  _assertReadable(db, file);
  const checkpointer =
    options.onCheckpointError && file !== ":memory:"
      ? startCheckpointer(file, options.onCheckpointError, options.checkpointIntervalMs)
      : null;
  if (checkpointer) db.pragma("wal_autocheckpoint = 0");
  db.exec(`
    create table if not exists kv (key text primary key, value text not null) without rowid;
    create table if not exists counter_rows (row text primary key, cells text not null, expires_at integer not null) without rowid;
    create table if not exists once (key text primary key, value text not null, expires_at integer) without rowid;
    create table if not exists lists (list text not null, member text not null, position integer not null, primary key (list, member)) without rowid;
    create table if not exists list_heads (list text primary key, n integer not null) without rowid;
  `);

  const q = {
    rowGet: db.prepare<[string], string>("select cells from counter_rows where row = ?").pluck(),
    dataVersion: db.prepare<[], number>("pragma data_version").pluck(),
    onceGet: db.prepare<[string], { value: string; expires_at: number | null }>("select value, expires_at from once where key = ?"),
    oncePut: db.prepare("insert or replace into once (key, value, expires_at) values (?, ?, ?)"),
    onceDel: db.prepare("delete from once where key = ?"),
    onceDelIf: db.prepare("delete from once where key = ? and value = ?"),
    listGet: db.prepare<[string, string], { position: number }>("select position from lists where list = ? and member = ?"),
    headNext: db.prepare<[string], { n: number }>(
      "insert into list_heads (list, n) values (?, 1) on conflict(list) do update set n = n + 1 returning n",
    ),
    listPut: db.prepare("insert into lists (list, member, position) values (?, ?, ?)"),
    listCount: db.prepare<[string], { n: number }>("select n from list_heads where list = ?"),
    sweep: db.prepare("delete from counter_rows where expires_at <= ?"),
    namesAfter: db.prepare<[string, string, number], string>("select key from kv where key > ? and key < ? order by key limit ?").pluck(),
  };
  _upgrade(db);
  const log = createCounterLog(db, options.counterLog);

  const readRow = (row: string): Map<string, Cell> => {
    const text = q.rowGet.get(row);
    return text === undefined ? new Map() : decodeCells(row, text);
  };
  const counters = _createCounterCache(readRow);
  /** Under the write lock: every entry of the log applied to `counter_rows`, and the copy dropped. */
  const replayLog = () => {
    log.replay();
    counters.restart(q.dataVersion.get()!);
  };
  /** Under the write lock: the copy and `counter_rows` are made current (see counter-log.ts) before they are read. */
  const ensureCurrent = () => {
    if (!counters.trusted(q.dataVersion.get()!)) replayLog();
  };
  const consumeBatch = db.transaction((batch: PendingConsume[]) => {
    ensureCurrent();
    counters.begin();
    let earliest = Number.POSITIVE_INFINITY;
    const results = batch.map((op) => {
      if (op.now < earliest) earliest = op.now;
      return counters.consume(op.windows, op.cost, op.now);
    });
    const forgetBefore = earliest - FORGET_AFTER_MS;
    log.append(_packed(counters.dirty(), forgetBefore), (row) => encodeCells(row, counters.row(row), forgetBefore));
    return results;
  });
  const refresh = db.transaction(ensureCurrent);
  const foldAll = db.transaction(replayLog);
  const groupCommit = _createGroupCommit((batch) => {
    try {
      return consumeBatch.immediate(batch);
    } catch (error) {
      counters.reset();
      throw error;
    }
  });
  const insertOnce = db.transaction((key: string, value: string, expiresAt: number | null, now: number): InsertOnceResult => {
    const existing = q.onceGet.get(key);
    if (existing && (existing.expires_at === null || existing.expires_at > now)) return { created: false, value: existing.value };
    q.oncePut.run(key, value, expiresAt);
    return { created: true, value };
  });
  const claimPosition = db.transaction((list: string, member: string) => {
    const existing = q.listGet.get(list, member);
    if (existing) return { position: existing.position, created: false };
    const position = q.headNext.get(list)!.n;
    q.listPut.run(list, member, position);
    return { position, created: true };
  });

  // Expired counters are dead weight only; sweeping hourly keeps the table small.
  const sweepTimer = setInterval(() => q.sweep.run(Date.now() - FORGET_AFTER_MS), 3_600_000);
  sweepTimer.unref();

  return {
    kind: "sqlite",
    records: createStorage({ driver: _sqliteKvDriver(db) }),
    consume: (windows, cost, now) => groupCommit.submit({ windows, cost, now }),
    readCounters: async (keys, now, rowNames) => {
      // Rows whose newest state is still in the log are in the copy; after another connection's
      // commit, the log is replayed first (under the write lock) so its rows are current too.
      if (!counters.trusted(q.dataVersion.get()!)) refresh.immediate();
      return keys.map((k, i) => {
        const c = counters.peek(k, rowNames?.[i]);
        return c !== undefined && c.expiresAt > now ? c.n : 0;
      });
    },
    insertOnce: async (key, value, expiresAt, now) => insertOnce.immediate(key, value, expiresAt, now),
    removeOnce: async (key, ifValue) => (ifValue === undefined ? q.onceDel.run(key) : q.onceDelIf.run(key, ifValue)).changes > 0,
    claimPosition: async (list, member) => claimPosition.immediate(list, member),
    countList: async (list) => q.listCount.get(list)?.n ?? 0,
    recordPages: async function* (prefix, pageSize) {
      // Keyset pages, as unstorage bounds a prefix (`prefix:`): each page starts after the last
      // name of the one before, so records written or removed meanwhile never repeat another.
      const base = `${prefix}:`;
      let after = base;
      for (;;) {
        const page = q.namesAfter.all(after, `${base}\uffff`, pageSize);
        if (page.length > 0) yield page;
        if (page.length < pageSize) return;
        after = page.at(-1)!;
      }
    },
    ping: async () => db.open,
    close: async () => {
      clearInterval(sweepTimer);
      // A clean stop leaves every count in counter_rows and no log to replay.
      if (db.open) foldAll.immediate();
      await checkpointer?.stop();
      if (db.open) db.close();
    },
  };
}

// --- Internal helpers ---

/** Page size of a new state file (see the pragma above). */
export const PAGE_SIZE = 1024;

/**
 * A counter is forgotten this long after it expired (its count is 0 from its expiry on anyway,
 * except as of an earlier time: the usage history reads a finished day then).
 */
const FORGET_AFTER_MS = EXPIRED_COUNTER_KEPT_MS;

/** Drop the copy beyond this many rows (one per active key, a few cells each). */
const COUNTER_ROWS_MAX = 100_000;

/** The row holding counter `key` (its declared row, else its own) and its cells, taken from `rows` or read into it (`load`) once. */
function _cellsOf(
  rows: Map<string, Map<string, Cell>>,
  key: string,
  declared: string | undefined,
  load: (row: string) => Map<string, Cell>,
): { row: string; cells: Map<string, Cell> } {
  const row = declared !== undefined && key.startsWith(declared) ? declared : key;
  let cells = rows.get(row);
  if (cells === undefined) rows.set(row, (cells = load(row)));
  return { row, cells };
}

/**
 * The in-process copy of the counter rows (see the header). Rows whose newest state is only in the
 * counter log are always in it: it is dropped only together with a replay of the log.
 */
function _createCounterCache(readRow: (row: string) => Map<string, Cell>) {
  const rows = new Map<string, Map<string, Cell>>();
  const touched = new Map<string, Map<string, Cell>>();
  let version = Number.NaN;
  const current = (key: string, declared: string | undefined): { row: string; cells: Map<string, Cell>; cell: Cell } => {
    const { row, cells } = _cellsOf(rows, key, declared, readRow);
    let cell = cells.get(key);
    if (cell === undefined) {
      cell = { n: 0, expiresAt: 0 };
      cells.set(key, cell);
    }
    return { row, cells, cell };
  };
  return {
    /** Whether the copy still holds what the file holds, given the connection's data_version. */
    trusted: (dataVersion: number): boolean => dataVersion === version && rows.size <= COUNTER_ROWS_MAX,
    /** Drops the copy; called under the write lock, right after the log was replayed. */
    restart(dataVersion: number): void {
      rows.clear();
      version = dataVersion;
    },
    begin(): void {
      touched.clear();
    },
    consume(windows: CounterWindow[], cost: number, now: number): ConsumeResult {
      const found = windows.map((w) => current(w.key, w.row));
      const counts = found.map(({ cell }) => (cell.expiresAt > now ? cell.n : 0));
      const deniedIndex = windows.findIndex((w, i) => counts[i]! + cost > w.limit);
      if (deniedIndex !== -1) return { admitted: false, counts, deniedIndex };
      windows.forEach((w, i) => {
        const { row, cells, cell } = found[i]!;
        cell.n = counts[i]! + cost;
        cell.expiresAt = w.expiresAt;
        touched.set(row, cells);
      });
      return { admitted: true, counts: counts.map((c) => c + cost), deniedIndex: -1 };
    },
    /** Counter `key` (in its declared row) as the copy holds it; the row is read once if absent. */
    peek: (key: string, declared: string | undefined): Cell | undefined => _cellsOf(rows, key, declared, readRow).cells.get(key),
    /** Row `row`'s cells as the copy holds them (read once if absent). */
    row: (row: string): Map<string, Cell> => _cellsOf(rows, row, row, readRow).cells,
    /** Rows changed by this batch: each goes into the log whole, once. */
    dirty: (): Iterable<[string, Map<string, Cell>]> => touched,
    /** The copy may hold increments that were rolled back: the next use replays the log first. */
    reset(): void {
      version = Number.NaN;
    },
  };
}

/** The batch's changed rows as the log stores them (forgotten cells left out; null for an empty row). */
function* _packed(dirty: Iterable<[string, Map<string, Cell>]>, forgetBefore: number): Iterable<[string, RowState]> {
  for (const [row, cells] of dirty) yield [row, encodeCells(row, cells, forgetBefore)];
}

interface PendingConsume {
  windows: CounterWindow[];
  cost: number;
  now: number;
}

/** Collects submissions until the current turn ends, then runs them as one batch. */
function _createGroupCommit(run: (batch: PendingConsume[]) => ConsumeResult[]) {
  let queue: Array<{ op: PendingConsume; resolve: (r: ConsumeResult) => void; reject: (e: unknown) => void }> = [];
  const flush = () => {
    const current = queue;
    queue = [];
    try {
      const results = run(current.map((p) => p.op));
      current.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      for (const p of current) p.reject(error);
    }
  };
  return {
    submit(op: PendingConsume): Promise<ConsumeResult> {
      return new Promise((resolve, reject) => {
        if (queue.push({ op, resolve, reject }) === 1) setImmediate(flush);
      });
    },
  };
}

/**
 * The layout of the state file, kept in SQLite's `user_version`: 0 is a file of a version that did
 * not record it (one row per counter), 2 the one-row-per-key counters, 3 those rows with the counter
 * log (counter-log.ts), whose entries a version before it would ignore. A server refuses a file of
 * a later layout than it knows: writing to it would count quotas in tables the newer version no
 * longer reads, or miss counts only its log holds. Raise this with every change a file needs
 * upgrading for, and upgrade in `_upgrade`.
 */
export const STATE_LAYOUT = 3;

function _assertReadable(db: Database.Database, file: string): void {
  const layout = db.pragma("user_version", { simple: true }) as number;
  if (layout <= STATE_LAYOUT) return;
  db.close();
  throw new Error(
    `${file} has state layout ${layout}, written by a newer version of this service; this version reads up to layout ${STATE_LAYOUT}. Run the newer version, or point DATA_DIR at another folder.`,
  );
}

/**
 * Brings a file of an earlier layout up to STATE_LAYOUT, once, under the write lock. From layout 0:
 * counters move from the one-row-per-counter table into counter_rows, so a count (a month's
 * overage, a trial's calls) survives the upgrade.
 */
function _upgrade(db: Database.Database): void {
  db.transaction(() => {
    if ((db.pragma("user_version", { simple: true }) as number) >= STATE_LAYOUT) return;
    db.pragma(`user_version = ${STATE_LAYOUT}`);
    const old = db.prepare("select name from sqlite_master where type = 'table' and name = 'counters'").get();
    if (old === undefined) return;
    const byRow = new Map<string, Map<string, Cell>>();
    for (const r of db.prepare("select key, n, expires_at from counters").iterate() as IterableIterator<{
      key: string;
      n: number;
      expires_at: number;
    }>) {
      // The old layout kept no row names: the quota keys of that time are grouped by their known shape.
      _cellsOf(byRow, r.key, legacyRowOf(r.key), () => new Map()).cells.set(r.key, { n: r.n, expiresAt: r.expires_at });
    }
    const put = db.prepare("insert into counter_rows (row, cells, expires_at) values (?, ?, ?)");
    for (const [row, cells] of byRow) {
      const packed = encodeCells(row, cells, Number.NEGATIVE_INFINITY);
      if (packed) put.run(row, packed.text, packed.expiresAt);
    }
    db.exec("drop table counters");
  }).immediate();
}

function _prepareFile(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return join(dir, "state.sqlite");
}

/** An unstorage driver over the `kv` table: each setItem is one committed transaction. */
function _sqliteKvDriver(db: Database.Database) {
  const get = db.prepare<[string], { value: string }>("select value from kv where key = ?");
  const put = db.prepare("insert into kv (key, value) values (?, ?) on conflict(key) do update set value = excluded.value");
  const del = db.prepare("delete from kv where key = ?");
  const keys = db.prepare<[string, string], { key: string }>("select key from kv where key >= ? and key < ? order by key");
  const all = db.prepare<[], { key: string }>("select key from kv order by key");
  const clear = db.prepare("delete from kv where key >= ? and key < ?");
  return defineDriver(() => ({
    name: "vkr-sqlite",
    flags: { maxDepth: false },
    hasItem: (key: string) => get.get(key) !== undefined,
    getItem: (key: string) => get.get(key)?.value ?? null,
    setItem: (key: string, value: string) => void put.run(key, value),
    removeItem: (key: string) => void del.run(key),
    getKeys: (base: string) => (base ? keys.all(base, base + "\uffff") : all.all()).map((r) => r.key),
    clear: (base: string) => void (base ? clear.run(base, base + "\uffff") : db.exec("delete from kv")),
    getInstance: () => db,
  }))(undefined);
}
