/**
 * Opens the state store a config names: Redis when REDIS_URL is set, else SQLite in DATA_DIR.
 * The server and the operator CLI both open it through here, so `vkr keys …` always acts on the
 * store the running service uses.
 */
import type { RuntimeConfig } from "../config.ts";
import type { StateBackend } from "./backend.ts";
import { createRedisBackend } from "./redis-backend.ts";
import { createSqliteBackend } from "./sqlite-backend.ts";

export async function openBackend(config: Pick<RuntimeConfig, "redisUrl" | "redisPrefix" | "dataDir">): Promise<StateBackend> {
  return config.redisUrl ? createRedisBackend({ url: config.redisUrl, prefix: config.redisPrefix }) : createSqliteBackend({ dataDir: config.dataDir });
}
