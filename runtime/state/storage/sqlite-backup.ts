/**
 * Backups of the embedded store (`vkr backup`, `vkr restore`).
 *
 * A backup is SQLite's online backup of `state.sqlite`, taken on a connection of its own while a
 * server keeps writing: every page is copied in ONE backup step (the step runs in a read
 * transaction, which in WAL mode never blocks the server's writers), so the copy is the file as
 * of one commit, counter log included: counts acknowledged but not yet folded into their rows
 * travel in the log and are folded when the restored file is first opened. Copying in small steps
 * would restart the copy at every commit of another connection, which a busy server makes forever.
 *
 * The backup file is one file: a line naming the format, a line of JSON (the state layout, the
 * SHA-256 and size of the database bytes, when and from where), then the database itself.
 * Restore checks all of it before it touches the target folder, and refuses the folder of a
 * running server (its lock file names a live process).
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  createReadStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import { createSqliteBackend, STATE_LAYOUT } from "./sqlite-backend.ts";

/** The file of the state in a data folder, and the lock a serving process holds beside it. */
export const STATE_FILE = "state.sqlite";
export const SERVER_LOCK_FILE = "server.lock";

const MAGIC = "vkr-state-backup 1";

export interface BackupManifest {
  layout: number;
  sha256: string;
  bytes: number;
  created_at: string;
  /** The folder it was taken from, as given (for the operator's records). */
  source: string;
}

/** Why a restore (or a backup) was refused: the CLI maps each to its exit code. */
export class BackupRefusal extends Error {
  constructor(
    readonly reason: "server_running" | "corrupt" | "newer_layout" | "not_found" | "target_exists",
    message: string,
  ) {
    super(message);
  }
}

/**
 * Copies `dataDir`'s state into `file` (written beside it, then renamed: a backup is whole or
 * absent) and returns what it recorded.
 * @example await backupState("./data", "/backups/vkr-2026-11-28.vkrbak", Date.now())
 */
export async function backupState(dataDir: string, file: string, now: number): Promise<BackupManifest> {
  const source = join(dataDir, STATE_FILE);
  if (!existsSync(source)) throw new BackupRefusal("not_found", `${source} does not exist: nothing to back up`);
  const copy = `${file}.copy-${process.pid}`;
  const partial = `${file}.partial-${process.pid}`;
  try {
    const db = new Database(source, { fileMustExist: true });
    try {
      db.pragma("busy_timeout = 5000");
      // The first step (0 pages) only starts the backup; the one after copies every page at once.
      await db.backup(copy, { progress: () => 0x7fffffff });
    } finally {
      db.close();
    }
    const layout = _checkDatabase(copy);
    const digest = await _digest(copy);
    const manifest: BackupManifest = {
      layout,
      sha256: digest.sha256,
      bytes: digest.bytes,
      created_at: new Date(now).toISOString(),
      source: dataDir,
    };
    const fd = openSync(partial, "w");
    try {
      writeSync(fd, `${MAGIC}\n${JSON.stringify(manifest)}\n`);
      const body = readFileSync(copy);
      writeSync(fd, body);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, file);
    return manifest;
  } finally {
    rmSync(copy, { force: true });
    rmSync(partial, { force: true });
  }
}

export interface RestoreResult {
  manifest: BackupManifest;
  /** The layout the restored file has now (an older one is upgraded). */
  layout: number;
  /** Where the state that was in the folder before was moved, if there was one. */
  replaced: string | null;
}

/**
 * Restores `file` into `dataDir`. Refuses (BackupRefusal) a folder a running server holds, a file
 * that is not a whole backup, and a layout newer than this version reads; upgrades an older one.
 * A state already in the folder is moved aside into `replaced-<time>/` only with `replace`.
 */
export async function restoreState(file: string, dataDir: string, options: { replace: boolean; now: number }): Promise<RestoreResult> {
  if (!existsSync(file)) throw new BackupRefusal("not_found", `${file} does not exist`);
  const { manifest, offset } = _readHeader(file);
  if (manifest.layout > STATE_LAYOUT)
    throw new BackupRefusal(
      "newer_layout",
      `${file} holds state layout ${manifest.layout}, written by a newer version; this version reads up to layout ${STATE_LAYOUT}. Restore it with that version.`,
    );
  const holder = serverHolding(dataDir);
  if (holder !== null)
    throw new BackupRefusal(
      "server_running",
      `${dataDir} is in use by a running server (pid ${holder}); stop it before restoring into its folder`,
    );
  const target = join(dataDir, STATE_FILE);
  if (existsSync(target) && !options.replace)
    throw new BackupRefusal("target_exists", `${target} exists; restore into an empty folder, or pass --replace to move it aside first`);
  mkdirSync(dataDir, { recursive: true });
  const staging = join(dataDir, `${STATE_FILE}.restoring-${process.pid}`);
  try {
    const digest = await _digest(file, offset);
    if (digest.bytes !== manifest.bytes || digest.sha256 !== manifest.sha256)
      throw new BackupRefusal("corrupt", `${file} is damaged: its database does not match the checksum recorded when it was taken`);
    _copyFrom(file, offset, staging);
    let layout: number;
    try {
      layout = _checkDatabase(staging);
    } catch (error) {
      throw new BackupRefusal("corrupt", `${file} is damaged: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (layout !== manifest.layout)
      throw new BackupRefusal("corrupt", `${file} is damaged: its header says layout ${manifest.layout}, its database ${layout}`);
    const replaced = existsSync(target) ? _moveAside(dataDir, options.now) : null;
    // A WAL or shared-memory file left beside would be applied to the restored database.
    for (const extra of ["-wal", "-shm"]) rmSync(target + extra, { force: true });
    renameSync(staging, target);
    // Opening upgrades an older layout; closing folds the counter log into the rows.
    const backend = createSqliteBackend({ dataDir });
    await backend.readCounters([], options.now);
    await backend.close();
    return { manifest, layout: _layoutOf(target), replaced };
  } finally {
    rmSync(staging, { force: true });
  }
}

/** Marks `dataDir` as served by this process (restore refuses it meanwhile); returns the release. */
export function holdDataDir(dataDir: string): () => void {
  const lock = join(dataDir, SERVER_LOCK_FILE);
  writeFileSync(lock, `${process.pid}\n`);
  return () => {
    if (serverHolding(dataDir) === process.pid) rmSync(lock, { force: true });
  };
}

/** The pid of a live process holding `dataDir`, or null (no lock, or the process is gone: a crash). */
export function serverHolding(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, SERVER_LOCK_FILE), "utf8").trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM" ? pid : null;
  }
}

// --- Internal helpers ---

/** Integrity-checks a database file, leaves it as one file (no WAL), and returns its layout. */
function _checkDatabase(file: string): number {
  const db = new Database(file, { fileMustExist: true });
  try {
    const check = db.pragma("integrity_check", { simple: true });
    if (check !== "ok") throw new Error(`integrity check: ${String(check)}`);
    db.pragma("journal_mode = DELETE");
    return db.pragma("user_version", { simple: true }) as number;
  } finally {
    db.close();
  }
}

function _layoutOf(file: string): number {
  const db = new Database(file, { fileMustExist: true, readonly: true });
  try {
    return db.pragma("user_version", { simple: true }) as number;
  } finally {
    db.close();
  }
}

function _readHeader(file: string): { manifest: BackupManifest; offset: number } {
  const fd = openSync(file, "r");
  const head = Buffer.alloc(4096);
  let read: number;
  try {
    read = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  const text = head.subarray(0, read).toString("latin1");
  const first = text.indexOf("\n");
  const second = first === -1 ? -1 : text.indexOf("\n", first + 1);
  if (first === -1 || second === -1 || text.slice(0, first) !== MAGIC)
    throw new BackupRefusal("corrupt", `${file} is not a backup made by vkr backup (or its header is damaged)`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text.slice(first + 1, second)) as BackupManifest;
  } catch {
    throw new BackupRefusal("corrupt", `${file} has a damaged header`);
  }
  if (!Number.isInteger(manifest.layout) || typeof manifest.sha256 !== "string" || !Number.isInteger(manifest.bytes))
    throw new BackupRefusal("corrupt", `${file} has a damaged header`);
  return { manifest, offset: second + 1 };
}

async function _digest(file: string, offset = 0): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(file, { start: offset }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

function _copyFrom(file: string, offset: number, to: string): void {
  const body = readFileSync(file).subarray(offset);
  const fd = openSync(to, "w");
  try {
    writeSync(fd, body);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Moves the folder's current state (database, WAL, shared memory) into `replaced-<time>/` together. */
function _moveAside(dataDir: string, now: number): string {
  const aside = join(dataDir, `replaced-${new Date(now).toISOString().replace(/[:.]/g, "-")}`);
  mkdirSync(aside, { recursive: true });
  for (const suffix of ["", "-wal", "-shm"]) {
    const from = join(dataDir, STATE_FILE + suffix);
    if (existsSync(from) && statSync(from).isFile()) renameSync(from, join(aside, basename(from)));
  }
  return aside;
}
