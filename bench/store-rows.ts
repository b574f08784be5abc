/**
 * The embedded store alone: the process CPU (every thread, the checkpointer's too) of one metered
 * request's durable write, `consume` of a key's hour, day and month windows in the service's own
 * SQLite backend, batched as the service batches them (64 per event-loop turn, one commit), with
 * one key and with many keys in turn. Runs alternate between the two, so the machine's drift hits
 * both alike. What it shows: the write's cost grows with the number of keys because each key has
 * a row of its own, which a batch of distinct keys rewrites on as many pages, where one key's
 * batch rewrites one row; the durable floor and the service pay this the same way.
 *
 *   npx tsx bench/store-rows.ts        # STORE_KEYS (10,000), STORE_BATCHES (2,000 per run), STORE_PAIRS (6)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashKey, keyIdOf } from "../runtime/domain/keys/key-secret.ts";
import { type PlannedWindow, planWindows } from "../runtime/domain/metering/quota.ts";
import type { Limits } from "../runtime/shared/schema/catalog.ts";
import { createSqliteBackend } from "../runtime/state/storage/sqlite-backend.ts";
import { membershipRecord } from "../test/helpers/key-record.ts";
import { median } from "./process-cpu.ts";

const KEYS = Number(process.env.STORE_KEYS ?? 10_000);
const BATCHES = Number(process.env.STORE_BATCHES ?? 2000);
const PAIRS = Number(process.env.STORE_PAIRS ?? 6);
const BATCH = 64;
const HUGE = 1e12;
const limits = {
  per_key_monthly: HUGE,
  hourly_rate_limit: HUGE,
  daily_standard: HUGE,
  daily_scale: HUGE,
} as Limits;

async function main(): Promise<void> {
  const backend = createSqliteBackend({
    dataDir: mkdtempSync(join(tmpdir(), "vkr-store-rows-")),
    onCheckpointError: (m) => process.stderr.write(`checkpoint: ${m}\n`),
  });
  const now = Date.now();
  // The service's row names: each key's windows live in the row of its record id.
  const plans: PlannedWindow[][] = Array.from({ length: KEYS }, (_, i) => {
    const hash = hashKey(`svc_live_bench${String(i).padStart(20, "0")}`);
    return planWindows(membershipRecord(keyIdOf(hash), hash), limits, now);
  });
  const run = async (keys: number): Promise<number> => {
    let next = 0;
    const before = process.cpuUsage();
    for (let b = 0; b < BATCHES; b++) {
      const batch: Array<Promise<unknown>> = [];
      for (let i = 0; i < BATCH; i++) batch.push(backend.consume(plans[next++ % keys]!, 1, now));
      await Promise.all(batch);
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / (BATCHES * BATCH);
  };
  try {
    await run(KEYS); // every key's row written once, and the JIT warm
    await run(1);
    const one: number[] = [];
    const many: number[] = [];
    for (let pair = 0; pair < PAIRS; pair++) {
      if (pair % 2 === 0) {
        one.push(await run(1));
        many.push(await run(KEYS));
      } else {
        many.push(await run(KEYS));
        one.push(await run(1));
      }
    }
    const ratios = one.map((o, i) => many[i]! / o);
    process.stdout.write(
      `store alone, CPU µs per consume (batches of ${BATCH}, ${PAIRS} pairs, medians): one key ${median(one).toFixed(2)}, ` +
        `${KEYS} keys in turn ${median(many).toFixed(2)} (+${(median(many) - median(one)).toFixed(2)} µs per request; ${median(ratios).toFixed(1)}×)\n`,
    );
  } finally {
    await backend.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`store-rows failed: ${String(error)}\n`);
  process.exit(1);
});
