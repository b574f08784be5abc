/**
 * The 1,000,000-key row's state: a state store holding a million membership keys, and the keys'
 * text in a file beside it (one a line), which the load generator picks from at random.
 *
 * The keys are issued by the code admin issuance runs once its purchase is reserved (POST
 * /api/keys, `vkr keys create`): `prepareKeys` makes and hashes them, `issuePurchaseKeys` writes
 * each record through the service's own key store and SQLite backend (`keys.put`, revision bump
 * included), in transactions of 10,000. Left out: the purchase and audit records admin issuance
 * also writes, which no metered read touches.
 *
 * That takes minutes (8 on a loaded 2-core machine, 1.5 of CPU), so the store is built once into
 * a cache folder named for the record format (the state layout, the page size, the key record's
 * schema, the count): a change to any of them builds a new one. Each bench run works on a copy
 * (1.1 GB: each record, ~360 bytes, is more than a 1 KiB page keeps in its leaf, so it spills to
 * an overflow page), so every run starts from the same state, never folded, never metered.
 *
 *   npx tsx bench/million-keys.ts      # builds (or finds) the store and prints where it is
 */
import { createHash } from "node:crypto";
import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type Database from "better-sqlite3";
import { resolveRuntimeConfig } from "../runtime/config.ts";
import { readActiveCohort } from "../runtime/domain/cohorts/active-cohort.ts";
import { newPurchaseId } from "../runtime/domain/payments/purchases/purchase-flow.ts";
import { issuePurchaseKeys, type PreparedKeys, prepareKeys } from "../runtime/domain/payments/purchases/purchase-keys.ts";
import type { PurchaseRecord } from "../runtime/domain/payments/purchases/purchase-store.ts";
import { createLogger } from "../runtime/shared/logger.ts";
import type { CohortName } from "../runtime/shared/schema/catalog.ts";
import { KeyRecordSchema } from "../runtime/shared/schema/keys.ts";
import { loadArtifacts } from "../runtime/state/releases/artifacts.ts";
import { createBuildRef } from "../runtime/state/releases/build-ref.ts";
import { createKeysStore } from "../runtime/state/storage/keys-store.ts";
import { openBackend } from "../runtime/state/storage/open-backend.ts";
import { PAGE_SIZE, STATE_LAYOUT } from "../runtime/state/storage/sqlite-backend.ts";

/** Keys in the store (BENCH_MILLION_KEYS, for a short run while developing). */
export const MILLION = Number(process.env.BENCH_MILLION_KEYS ?? 1_000_000);
/** Keys per purchase (the admin route's maximum) and per transaction. */
const PER_CALL = 5;
const CHUNK = 10_000;

export interface MillionKeyStore {
  /** The cached folder: `state.sqlite` and `keys.txt` (one key a line). */
  dir: string;
  keysFile: string;
  count: number;
}

/** The cached store, built first when it is missing; `distDir` holds the build the keys are issued against. */
export async function millionKeyStore(distDir = "dist", count = MILLION): Promise<MillionKeyStore> {
  const dir = resolve(".tmp/bench/million-keys", _format(count));
  const keysFile = join(dir, "keys.txt");
  if (!existsSync(join(dir, "complete"))) {
    const started = Date.now();
    process.stderr.write(`million-keys: issuing ${count} keys into ${dir} (once; reused while the record format stays)\n`);
    await _build(dir, distDir, count);
    process.stderr.write(`million-keys: built in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
  return { dir, keysFile, count };
}

/** A fresh folder holding a copy of the cached store, for one server's run. */
export function copyStore(store: MillionKeyStore): string {
  const dataDir = mkdtempSync(join(tmpdir(), "vkr-million-"));
  copyFileSync(join(store.dir, "state.sqlite"), join(dataDir, "state.sqlite"));
  return dataDir;
}

/**
 * A wrk script whose every request carries a key picked at random from `keysFile` (one a line),
 * read once when the thread starts: a million keys are too many for a table written in the script.
 * Seeded, so two runs send the same sequence.
 */
export function randomKeyScript(keysFile: string, seed = 44): string {
  const script = join(mkdtempSync(join(tmpdir(), "vkr-wrk-")), "random-key.lua");
  writeFileSync(
    script,
    `local keys = {}\ninit = function(args)\n  for line in io.lines(${JSON.stringify(keysFile)}) do keys[#keys + 1] = line end\n  math.randomseed(${seed})\nend\nrequest = function()\n  wrk.headers["x-service-key"] = keys[math.random(#keys)]\n  return wrk.format()\nend\n`,
  );
  return script;
}

/** The keys of `keysFile`, for a generator that holds them itself (autocannon, the restart's probe). */
export function readKeys(keysFile: string): string[] {
  return readFileSync(keysFile, "utf8").split("\n").filter(Boolean);
}

/** Samples a process's resident memory (VmRSS) every `everyMs` until stopped; `peak()` in MB. */
export function sampleRss(pid: number, everyMs = 100): { peak(): number; stop(): number } {
  let peak = 0;
  const sample = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
      if (kb > peak) peak = kb;
    } catch {
      // The process ended, or /proc is not there: the peak so far stands.
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    peak: () => peak / 1024,
    stop: () => {
      sample();
      clearInterval(timer);
      return peak / 1024;
    },
  };
}

// --- Internal helpers ---

/** The cache folder's name: what the stored bytes depend on. */
function _format(count: number): string {
  const format = JSON.stringify({ layout: STATE_LAYOUT, page: PAGE_SIZE, record: KeyRecordSchema, count, per: PER_CALL });
  return `${count}-${createHash("sha256").update(format).digest("hex").slice(0, 12)}`;
}

async function _build(dir: string, distDir: string, count: number): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const building = `${dir}.building`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const config = resolveRuntimeConfig({ DATA_DIR: building, DIST_DIR: distDir, LOG_LEVEL: "warn" });
  // As the CLI opens it (`vkr keys create`): SQLite checkpoints between the transactions.
  const backend = await openBackend(config);
  const keys = createKeysStore(backend, { cacheMs: 0 });
  const build = createBuildRef(await loadArtifacts(config.distDir), config.retrievalLimits);
  const deps = { backend, keys, build, config, logger: createLogger("warn") };
  // Keys issued to no account belong to the open cohort (cohorts/cohort-seats.ts), as admin keys do.
  const cohort = await readActiveCohort(backend);
  const db = backend.records.getMount("").driver.getInstance!() as Database.Database;
  const out = createWriteStream(join(building, "keys.txt"));
  const now = Date.now();
  try {
    for (let issued = 0; issued < count; ) {
      // One transaction per chunk: the records are the same, written a thousand times faster.
      db.exec("begin immediate");
      const chunk = Math.min(CHUNK, count - issued);
      const calls: Array<Promise<string[]>> = [];
      for (let at = 0; at < chunk; at += PER_CALL) {
        const prepared = prepareKeys(newPurchaseId(), Math.min(PER_CALL, chunk - at), null);
        const purchase = _adminPurchase(prepared, cohort);
        calls.push(issuePurchaseKeys(deps, purchase, now).then(() => prepared.keys));
      }
      const written = (await Promise.all(calls)).flat();
      db.exec("commit");
      out.write(written.join("\n") + "\n");
      issued += chunk;
      if (issued % 100_000 === 0) process.stderr.write(`million-keys: ${issued} issued\n`);
    }
  } finally {
    if (db.inTransaction) db.exec("rollback");
    await backend.close();
    await new Promise<void>((r) => out.end(r));
  }
  writeFileSync(join(building, "complete"), `${new Date().toISOString()}\n`);
  renameSync(building, dir);
}

/** The purchase record admin issuance completes (purchase-flow.ts), with only what issuing the keys reads. */
function _adminPurchase(prepared: PreparedKeys, cohort: CohortName): PurchaseRecord {
  return {
    method: "admin",
    vertical: "travel",
    cohort,
    account: null,
    agent_id: null,
    label: "bench-million",
    permanent: false,
    key_ids: prepared.ids,
    key_hashes: prepared.hashes,
  } as Partial<PurchaseRecord> as PurchaseRecord;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  millionKeyStore().then(
    (s) => process.stdout.write(`${s.count} keys: ${s.dir}\n`),
    (error: unknown) => {
      process.stderr.write(`million-keys failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
}
