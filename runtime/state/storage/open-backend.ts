/**
 * Opens the state store a config names: Redis when one is configured (a node, a cluster or a
 * sentinel set; see config.ts), else SQLite in DATA_DIR.
 * The server and the operator CLI both open it through here, so `vkr keys …` always acts on the
 * store the running service uses.
 */
import type { StateBackend } from "./backend.ts";
import { createRedisBackend } from "./redis-backend.ts";
import type { DurableWriteOptions } from "./redis-durable.ts";
import { createSqliteBackend } from "./sqlite-backend.ts";

export interface OpenBackendOptions {
  /** A long-running server checkpoints SQLite's WAL off the event loop (see sqlite-checkpointer.ts); a CLI run leaves it to SQLite. */
  onCheckpointError?: (message: string) => void;
}

/** `config`: the fields of `RuntimeConfig` (domain/runtime-config.ts) that say where the store is. */
export async function openBackend(
  config: { redisUrl: string | undefined; redisPrefix: string; dataDir: string; redisWait?: DurableWriteOptions },
  options: OpenBackendOptions = {},
): Promise<StateBackend> {
  return config.redisUrl
    ? createRedisBackend({ url: config.redisUrl, prefix: config.redisPrefix, wait: config.redisWait })
    : createSqliteBackend({ dataDir: config.dataDir, onCheckpointError: options.onCheckpointError });
}
