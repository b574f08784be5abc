/**
 * WAL checkpoints for the embedded store, on a worker thread of their own.
 *
 * SQLite's automatic checkpoint runs inside whichever commit crosses 1,000 WAL pages and, with
 * `synchronous=NORMAL`, fsyncs the WAL and the database file there: on the event loop, in the
 * middle of a quota batch. With many keys a batch dirties a page per key, so that happened every
 * ~15 batches and each one held every waiting request for the fsyncs (docs/performance.md,
 * "Figures behind design choices"). So the server's connection turns them off
 * and this worker runs PASSIVE checkpoints on its own connection: they never block a writer, and
 * a writer restarts the WAL from its start once a checkpoint has copied all of it, which keeps the
 * file bounded. Durability is unchanged: a commit is in the WAL before it returns, and a
 * checkpoint only copies committed pages.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

export interface Checkpointer {
  stop(): Promise<void>;
}

/** How often the worker checkpoints; a second's worth of WAL is at most a few MB. */
const INTERVAL_MS = 500;

// CommonJS on purpose: an eval'd worker runs as a script, and the bundle has no file for it.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("busy_timeout = 5000");
const timer = setInterval(() => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch (error) { parentPort.postMessage(String(error && error.message || error)); }
}, workerData.intervalMs);
parentPort.on("message", () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export function startCheckpointer(file: string, onError: (message: string) => void, intervalMs = INTERVAL_MS): Checkpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs } });
  worker.on("message", (message: string) => onError(message));
  worker.on("error", (error) => onError(error.message));
  worker.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (worker.threadId === -1) return resolve();
        // Unref'd, the worker would not keep the loop alive while we wait: a server whose last
        // step is this wait would exit mid-await (code 13) instead of closing.
        worker.ref();
        worker.once("exit", () => resolve());
        worker.postMessage("stop");
      }),
  };
}
