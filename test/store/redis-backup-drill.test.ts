/**
 * The Redis restore drill of docs/operations.md ("Backups"), run against throwaway redis-server
 * nodes in folders of their own: state written through the service's own backend is found again,
 * counters included, on a node started from (a) the RDB snapshot taken with BGSAVE and (b) a copy
 * of the append-only folder.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import type { StateBackend } from "../../runtime/state/storage/backend.ts";
import { createKeysStore } from "../../runtime/state/storage/keys-store.ts";
import { createRedisBackend } from "../../runtime/state/storage/redis-backend.ts";
import { membershipRecord } from "../helpers/key-record.ts";
import { startRedisNode, waitFor } from "../helpers/redis-topology.ts";

const cli = promisify(execFile);
const redisCli = async (port: number, ...args: string[]) => (await cli("redis-cli", ["-p", String(port), ...args])).stdout.trim();
const PREFIX = "drill:";
const now = Date.now();
const record = membershipRecord("d1d2d3d4d5d6");
const counter = { key: `q:{k:${record.id}}:${record.id}:d1`, limit: Number.POSITIVE_INFINITY, expiresAt: now + 86_400_000 };
const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

async function writeState(url: string): Promise<void> {
  const backend = await createRedisBackend({ url, prefix: PREFIX, wait: { replicas: 0, timeoutMs: 1000 } });
  await createKeysStore(backend, { cacheMs: 0 }).put(record);
  for (let i = 0; i < 25; i++) await backend.consume([counter], 1, now);
  await backend.records.setItem("purchase:pur_drill", { id: "pur_drill", state: "issued" });
  await backend.close();
}

async function expectState(url: string): Promise<void> {
  const backend: StateBackend = await createRedisBackend({ url, prefix: PREFIX, wait: { replicas: 0, timeoutMs: 1000 } });
  try {
    expect(await createKeysStore(backend, { cacheMs: 0 }).get(record.hash)).toMatchObject({ id: record.id, status: "active" });
    expect(await backend.readCounters([counter.key], now)).toEqual([25]);
    expect(await backend.records.getItem("purchase:pur_drill")).toMatchObject({ state: "issued" });
  } finally {
    await backend.close();
  }
}

describe("Redis restore drill", { timeout: 60_000 }, () => {
  it("an RDB snapshot (BGSAVE, then copy dump.rdb) restores onto a fresh node", async () => {
    const live = await startRedisNode(["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""]);
    stops.push(live.stop);
    await writeState(live.url);
    await redisCli(live.port, "BGSAVE");
    // Done when no save runs and nothing changed since the last one (LASTSAVE has whole seconds only).
    await waitFor(async () => {
      const info = await redisCli(live.port, "INFO", "persistence");
      return (
        info.includes("rdb_bgsave_in_progress:0") &&
        info.includes("rdb_changes_since_last_save:0") &&
        existsSync(join(live.dir, "dump.rdb"))
      );
    }, 10_000);
    const restored = mkdtempSync(join(tmpdir(), "vkr-rdrill-"));
    cpSync(join(live.dir, "dump.rdb"), join(restored, "dump.rdb"));
    // Started without AOF (an empty AOF would win over the snapshot), then AOF switched on live:
    // Redis writes it from what it loaded.
    const fresh = await startRedisNode(["--appendonly", "no", "--save", ""], restored);
    stops.push(fresh.stop);
    await expectState(fresh.url);
    await redisCli(fresh.port, "CONFIG", "SET", "appendonly", "yes");
    await waitFor(async () => (await redisCli(fresh.port, "INFO", "persistence")).includes("aof_rewrite_in_progress:0"), 10_000);
    expect(existsSync(join(restored, "appendonlydir"))).toBe(true);
    await expectState(fresh.url);
  });

  it("a copy of the append-only folder restores onto a fresh node", async () => {
    const live = await startRedisNode(["--appendonly", "yes", "--appendfsync", "always", "--save", ""]);
    stops.push(live.stop);
    await writeState(live.url);
    const restored = mkdtempSync(join(tmpdir(), "vkr-rdrill-"));
    cpSync(join(live.dir, "appendonlydir"), join(restored, "appendonlydir"), { recursive: true });
    const fresh = await startRedisNode(["--appendonly", "yes", "--save", ""], restored);
    stops.push(fresh.stop);
    await expectState(fresh.url);
  });
});
