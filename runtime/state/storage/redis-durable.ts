/**
 * Writes that must survive a failover. Redis replicates asynchronously: a write the primary
 * acknowledged and no replica received yet is lost when a replica is promoted. So a durable write
 * goes out with `ROLE` in one pipeline (one connection, one node: the one owning the key's slot),
 * and when that primary has replicas online it is followed by `WAIT n <ms>` on the same
 * connection, which returns once n replicas hold every earlier write of that connection. Fewer
 * confirmations in time throw: the caller answers 503 (or retries the step), never a silent
 * success of a write a failover may undo.
 *
 * A primary with no replica online (a single node, or a promoted replica whose old primary has not
 * come back yet) has nothing to wait for; its writes are as durable as its own append-only file.
 *
 * The writer uses a connection of its own: WAIT blocks its connection until replicas answer, and
 * the metered requests' quota scripts must not queue behind it.
 */
import { type ChainableCommander, Cluster } from "ioredis";
import type { RedisClient } from "./redis-connection.ts";

export interface DurableWriteOptions {
  /** Replicas that must confirm a write (capped at those online); 0 turns waiting off. */
  replicas: number;
  /** Longest wait for their confirmation. */
  timeoutMs: number;
}

export class ReplicaAckError extends Error {
  constructor(
    readonly wanted: number,
    readonly acknowledged: number,
  ) {
    super(`write confirmed by ${acknowledged} of ${wanted} replicas in time; treated as not done`);
  }
}

export type DurableWrite = (routingKey: string, build: (pipeline: ChainableCommander) => void) => Promise<unknown[]>;

/** The replies of `build`'s commands, in order, once the write is confirmed. */
export function createDurableWriter(client: RedisClient, options: DurableWriteOptions): DurableWrite {
  const send = async (build: (pipeline: ChainableCommander) => void) => {
    const pipeline = client.pipeline();
    build(pipeline);
    if (options.replicas > 0) pipeline.role();
    return _replies(await pipeline.exec());
  };
  return async (routingKey, build) => {
    let replies: unknown[];
    try {
      replies = await send(build);
    } catch (error) {
      // After a failover the slot's old primary (now gone or a replica) answers MOVED. ioredis
      // follows a pipeline's MOVED only when every other command in it is read-only, which ROLE is
      // not, and a cluster client refreshes its slot map on no timer: without this, this
      // connection would keep asking the old node for good. A MOVED command did not run (the
      // pipeline's keys share one slot, so none did), so it is sent once more on the fresh map.
      if (!_isMoved(client, error)) throw error;
      await _refreshSlots(client as Cluster);
      replies = await send(build);
    }
    if (options.replicas === 0) return replies;
    const role = replies.pop() as [string, number, unknown[]];
    const online = role[0] === "master" && Array.isArray(role[2]) ? role[2].length : 0;
    if (online === 0) return replies;
    const wanted = Math.min(options.replicas, online);
    // The key routes the WAIT to the node (and connection) that took the write, on a cluster.
    const confirm = client.pipeline().exists(routingKey).wait(wanted, options.timeoutMs);
    let acknowledged: number;
    try {
      [, acknowledged] = _replies(await confirm.exec()) as [number, number];
    } catch (error) {
      // The slot moved since the write: whether a replica has it is unknown, so it is not done.
      if (_isMoved(client, error)) void _refreshSlots(client as Cluster).catch(() => undefined);
      throw error;
    }
    if (acknowledged < wanted) throw new ReplicaAckError(wanted, acknowledged);
    return replies;
  };
}

// --- Internal helpers ---

function _replies(results: Array<[Error | null, unknown]> | null): unknown[] {
  if (!results) throw new Error("pipeline discarded");
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

function _isMoved(client: RedisClient, error: unknown): boolean {
  return client instanceof Cluster && error instanceof Error && error.message.startsWith("MOVED ");
}

function _refreshSlots(cluster: Cluster): Promise<void> {
  return new Promise((resolve, reject) => cluster.refreshSlotsCache((error) => (error ? reject(error) : resolve())));
}
