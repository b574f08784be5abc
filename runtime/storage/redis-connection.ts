/**
 * One way to connect unstorage's redis driver for every Redis use (state, releases): commands
 * fail fast instead of queueing while Redis is unreachable, reconnection is quick and endless so
 * an outage ends on its own, and a first connection that fails makes startup fail.
 */
import { Redis } from "ioredis";
import redisDriver from "unstorage/drivers/redis";

export interface RedisConnectionOptions {
  url: string;
  /** unstorage key base (namespace) of the records. */
  base: string;
  /** Longest wait for one command before it fails. */
  commandTimeoutMs: number;
  /** Longest wait for the first connection before startup fails. */
  connectTimeoutMs?: number;
  /** Names the user in the startup error, e.g. `redis-backend`. */
  label: string;
}

export async function connectRedisDriver(options: RedisConnectionOptions): Promise<{ driver: ReturnType<typeof redisDriver>; client: Redis }> {
  const driver = redisDriver({
    url: options.url,
    base: options.base,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    retryStrategy: (times: number) => Math.min(50 * times, 1000),
    // Commands issued in the same event-loop turn (one quota script per metered request) go out
    // in one socket write instead of one write each.
    enableAutoPipelining: true,
  });
  const client = driver.getInstance!() as Redis;
  // Connection errors are expected during an outage; each failed command reports its own.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    client.disconnect(); // stop the reconnect loop: startup fails instead
    throw new Error(`[${options.label}] cannot connect to ${redactRedisUrl(options.url)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { driver, client };
}

/** The URL without its password, for messages. */
export function redactRedisUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}
