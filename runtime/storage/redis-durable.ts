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
import type { ChainableCommander } from "ioredis";
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
  return async (routingKey, build) => {
    const pipeline = client.pipeline();
    build(pipeline);
    if (options.replicas > 0) pipeline.role();
    const replies = _replies(await pipeline.exec());
    if (options.replicas === 0) return replies;
    const role = replies.pop() as [string, number, unknown[]];
    const online = role[0] === "master" && Array.isArray(role[2]) ? role[2].length : 0;
    if (online === 0) return replies;
    const wanted = Math.min(options.replicas, online);
    // The key routes the WAIT to the node (and connection) that took the write, on a cluster.
    const confirm = client.pipeline().exists(routingKey).wait(wanted, options.timeoutMs);
    const [, acknowledged] = _replies(await confirm.exec()) as [number, number];
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
