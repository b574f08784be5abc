/**
 * The store contract on a real Redis Cluster (three primaries, three replicas) and on a primary
 * with a replica behind a sentinel, both started by this file (test/helpers/redis-topology.ts);
 * plus what only these have: every script's keys in one slot, records listed across every
 * primary, and writes of the money path confirmed by a replica before they are acknowledged.
 */
import calculateSlot from "cluster-key-slot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isApiError } from "../../runtime/shared/errors.ts";
import { createRedisBackend } from "../../runtime/state/storage/redis-backend.ts";
import { ReplicaAckError } from "../../runtime/state/storage/redis-durable.ts";
import { primaryPortFor, type RedisTopology, startRedisCluster, startRedisSentinel } from "../helpers/redis-topology.ts";
import { testBackend } from "./backend-contract.ts";

let cluster: RedisTopology;
let sentinel: RedisTopology;
let n = 0;

beforeAll(async () => {
  [cluster, sentinel] = await Promise.all([startRedisCluster(), startRedisSentinel()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([cluster?.stop(), sentinel?.stop()]);
});

testBackend("redis cluster", () => {
  const prefix = `t${n++}:`;
  return { shared: true, create: () => createRedisBackend({ url: cluster.url, prefix }) };
});

testBackend("redis sentinel", () => {
  const prefix = `t${n++}:`;
  return { shared: true, create: () => createRedisBackend({ url: sentinel.url, prefix }) };
});

describe("redis cluster specifics", () => {
  it("lists records stored on every primary (not one random node) and reads several at once", async () => {
    const backend = await createRedisBackend({ url: cluster.url, prefix: "list:" });
    try {
      const names = Array.from({ length: 40 }, (_, i) => `keys:h${i}`);
      await Promise.all(names.map((name, i) => backend.records.setItem(name, { i })));
      const slots = new Set(names.map((name) => calculateSlot(`list:r:${name}`)));
      expect(slots.size).toBeGreaterThan(20); // spread over the cluster, so over several primaries
      expect((await backend.records.getKeys("keys")).sort()).toEqual([...names].sort());
      const items = await backend.records.getItems(names.slice(0, 5));
      expect(items.map((x) => x.value)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
    } finally {
      await backend.close();
    }
  });

  it("keeps a token's ledger and its batch counters in one slot, and refuses a script whose keys span slots", async () => {
    const backend = await createRedisBackend({ url: cluster.url, prefix: "slots:" });
    try {
      const expiresAt = Date.now() + 3_600_000;
      // The per-use path reserves on the token's ledger and counts the batch in one script.
      const reserved = await backend.consume(
        [
          { key: "payledger:jti-1", limit: 10, expiresAt },
          { key: "payreserved:instance-a:jti-1", limit: Number.POSITIVE_INFINITY, expiresAt },
        ],
        3,
        Date.now(),
      );
      expect(reserved.admitted).toBe(true);
      expect(await backend.readCounters(["payreserved:instance-a:jti-1", "paysettled:instance-a:jti-1"], Date.now())).toEqual([3, 0]);
      const spanning = await backend
        .consume(
          [
            { key: "q:{k:a}:x", limit: 5, expiresAt },
            { key: "q:{k:b}:x", limit: 5, expiresAt },
          ],
          1,
          Date.now(),
        )
        .catch((e: unknown) => e);
      expect(isApiError(spanning) && spanning.code === "store_unavailable").toBe(true);
      expect(String((spanning as { cause?: unknown }).cause)).toContain("span Redis Cluster slots");
    } finally {
      await backend.close();
    }
  });

  it("acknowledges a money write only once a replica has it", async () => {
    const backend = await createRedisBackend({ url: cluster.url, prefix: "wait:" });
    try {
      await backend.records.setItem("purchases:{w}:p1", { state: "paid" });
      const primary = await primaryPortFor(cluster, "wait:r:purchases:{w}:p1");
      const primaryClient = cluster.nodeClient(primary);
      const info = String(await primaryClient.info("replication"));
      primaryClient.disconnect();
      const replicaPort = Number(/slave0:ip=[^,]+,port=(\d+)/.exec(info)![1]);
      const replica = cluster.nodeClient(replicaPort);
      await replica.call("READONLY");
      expect(await replica.get("wait:r:purchases:{w}:p1")).toBe(JSON.stringify({ state: "paid" }));
      replica.disconnect();
      // A replica that stops taking the stream (a stopped process) makes the next money write
      // fail (503), not pass; a quota counter is not waited for.
      const node = cluster.nodes.find((x) => x.port === replicaPort)!;
      node.proc.kill("SIGSTOP");
      let refused: unknown;
      let quota: unknown;
      try {
        refused = await backend.records.setItem("purchases:{w}:p2", { state: "paid" }).catch((e: unknown) => e);
        const primaryOf = await primaryPortFor(cluster, "wait:c:q:{k:z}:h");
        quota =
          primaryOf === primary
            ? await backend.consume([{ key: "q:{k:z}:h", limit: 5, expiresAt: Date.now() + 60_000 }], 1, Date.now())
            : "elsewhere";
      } finally {
        node.proc.kill("SIGCONT");
      }
      expect(isApiError(refused) && refused.code === "store_unavailable").toBe(true);
      expect((refused as { cause?: unknown }).cause).toBeInstanceOf(ReplicaAckError);
      if (quota !== "elsewhere") expect(quota).toMatchObject({ admitted: true });
    } finally {
      await backend.close();
    }
  });
});
