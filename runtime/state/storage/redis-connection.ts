/**
 * One way to connect to Redis for every Redis use (state, releases), on one node, a Redis Cluster
 * or a primary with replicas behind Sentinel, all through ioredis and unstorage's redis driver:
 * commands fail fast instead of queueing while Redis is unreachable, reconnection is quick and
 * endless so an outage ends on its own, and a first connection that fails makes startup fail.
 *
 * The topology is named by one locator string (see `parseRedisLocator`), so every place that
 * carries "the Redis URL" (config, CLI, publisher) carries a cluster or a sentinel set too.
 *
 * Two things unstorage's driver does on one node only are done here across a cluster: listing
 * keys (SCAN on every primary, not one random node) and reading several records (one GET per key:
 * MGET across slots is refused by a cluster).
 */
import { Cluster, type ClusterOptions, type Redis, type RedisOptions } from "ioredis";
import redisDriver from "unstorage/drivers/redis";
import { createDurableWriter, type DurableWrite, type DurableWriteOptions } from "./redis-durable.ts";

export type RedisClient = Redis | Cluster;

export type RedisTarget =
  | { kind: "single"; url: string }
  | { kind: "cluster"; nodes: Array<{ host: string; port: number }>; username?: string; password?: string; tls: boolean }
  | {
      kind: "sentinel";
      sentinels: Array<{ host: string; port: number }>;
      name: string;
      username?: string;
      password?: string;
      tls: boolean;
    };

export interface RedisConnectionOptions {
  /** A locator: `redis://…`, `redis+cluster://h:p,h:p` or `redis+sentinel://h:p,h:p/<master name>`. */
  url: string;
  /** unstorage key base (namespace) of the records. */
  base: string;
  /** Longest wait for one command before it fails. */
  commandTimeoutMs: number;
  /** Longest wait for the first connection before startup fails. */
  connectTimeoutMs?: number;
  /** Names the user in the startup error, e.g. `redis-backend`. */
  label: string;
  /**
   * Opens a second connection for writes that must survive a failover and sends every record
   * write (set, remove) through it, confirmed by replicas (see `redis-durable.ts`).
   */
  durable?: DurableWriteOptions;
  /** Commands sent as they are, never auto-pipelined: callers that group their own calls. */
  unpipelined?: string[];
}

export interface RedisConnection {
  driver: ReturnType<typeof redisDriver>;
  /** The shared connection (auto-pipelined): reads and the hot path's scripts. */
  client: RedisClient;
  target: RedisTarget;
  /** With `durable`: its connection and the writer on it. */
  durable?: { client: RedisClient; write: DurableWrite };
}

const LOCATOR_RE = /^(rediss?)\+(cluster|sentinel):\/\/(?:([^@/]*)@)?([^/?#]+)(?:\/([^?#]*))?$/;

/**
 * `redis://` and `rediss://` URLs name one node (ioredis' own URL form). `redis+cluster://[user:pass@]h:p,h:p`
 * names a cluster by some of its nodes, `redis+sentinel://[user:pass@]h:p,h:p/<master name>` a
 * primary through its sentinels (the credentials are the data nodes'); `rediss+…` adds TLS.
 */
export function parseRedisLocator(url: string): RedisTarget {
  const m = LOCATOR_RE.exec(url);
  if (!m) {
    if (!/^rediss?:\/\//.test(url))
      throw new Error(`not a Redis locator: ${redactRedisUrl(url)} (expected redis://, rediss://, redis+cluster:// or redis+sentinel://)`);
    return { kind: "single", url };
  }
  const [, scheme, kind, userinfo, hosts, path] = m;
  const nodes = hosts!.split(",").map((hostPort) => {
    const hp = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(hostPort.trim());
    if (!hp) throw new Error(`Redis ${kind} node must be host:port, got "${hostPort}"`);
    return { host: hp[1]!, port: Number(hp[2]) };
  });
  const [user, pass] = userinfo === undefined ? [] : userinfo.split(/:(.*)/s).map((s) => decodeURIComponent(s));
  const auth = { ...(user ? { username: user } : {}), ...(pass ? { password: pass } : {}), tls: scheme === "rediss" };
  if (kind === "cluster") return { kind: "cluster", nodes, ...auth };
  const name = decodeURIComponent(path ?? "");
  if (!name) throw new Error("a redis+sentinel:// locator needs the master name as its path, e.g. redis+sentinel://h:26379/mymaster");
  return { kind: "sentinel", sentinels: nodes, name, ...auth };
}

export async function connectRedisDriver(options: RedisConnectionOptions): Promise<RedisConnection> {
  const target = parseRedisLocator(options.url);
  const base = redisDriver(_driverOptions(target, options));
  const client = base.getInstance!() as RedisClient;
  await _connect(client, options);
  const prefixed = (key: string) => _joinKeys(options.base, key);
  const strip = (key: string) => (options.base ? key.slice(_joinKeys(options.base).length + 1) : key);
  const matchAll = (sub: string | undefined) => {
    const prefix = _joinKeys(options.base, sub ?? "");
    return prefix ? `${_escapeRedisGlob(prefix)}:*` : "*";
  };
  const driver: ReturnType<typeof redisDriver> = { ...base };
  if (client instanceof Cluster) {
    driver.getKeys = async (sub: string) => (await scanCluster(client, matchAll(sub))).map(strip);
    driver.clear = async (sub: string) => {
      await Promise.all((await scanCluster(client, matchAll(sub))).map((key) => client.unlink(key)));
    };
    driver.getItems = async (items: Array<{ key: string }>) =>
      Promise.all(items.map(async ({ key }) => ({ key, value: (await client.get(prefixed(key))) ?? null })));
  }
  if (!options.durable) return { driver, client, target };
  const durableClient =
    client instanceof Cluster ? client.duplicate([], { enableAutoPipelining: false }) : client.duplicate({ enableAutoPipelining: false });
  try {
    await _connect(durableClient, options);
  } catch (error) {
    client.disconnect();
    throw error;
  }
  const write = createDurableWriter(durableClient, options.durable);
  driver.setItem = async (key: string, value: string, tOptions?: { ttl?: number }) => {
    const k = prefixed(key);
    await write(k, (pipe) => void (tOptions?.ttl ? pipe.set(k, value, "EX", tOptions.ttl) : pipe.set(k, value)));
  };
  driver.removeItem = async (key: string) => {
    const k = prefixed(key);
    await write(k, (pipe) => void pipe.unlink(k));
  };
  return { driver, client, target, durable: { client: durableClient, write } };
}

/** Every key matching `pattern` on every primary of the cluster (each primary holds its own slots). */
export async function scanCluster(cluster: Cluster, pattern: string): Promise<string[]> {
  const perNode = await Promise.all(
    cluster.nodes("master").map(async (node) => {
      const keys: string[] = [];
      let cursor = "0";
      do {
        const [next, batch] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
        keys.push(...batch);
        cursor = next;
      } while (cursor !== "0");
      return keys;
    }),
  );
  return [...new Set(perNode.flat())];
}

/** The URL without its password, for messages. */
export function redactRedisUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//***@");
}

// --- Internal helpers ---

async function _connect(client: RedisClient, options: RedisConnectionOptions): Promise<void> {
  // Connection errors are expected during an outage or a failover; each failed command reports its own.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    client.disconnect(); // stop the reconnect loop: startup fails instead
    throw new Error(
      `[${options.label}] cannot connect to ${redactRedisUrl(options.url)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The redis driver's key joining (unstorage/drivers/utils, not exported): `:`-joined, separators normalised. */
function _joinKeys(...keys: string[]): string {
  return keys
    .map((key) => (key ? key.replace(/[:/\\]/g, ":").replace(/^[:/\\]|[:/\\]$/g, "") : ""))
    .filter(Boolean)
    .join(":");
}

function _escapeRedisGlob(pattern: string): string {
  return pattern.replace(/[*?[\]\\]/g, String.raw`\$&`);
}

function _driverOptions(target: RedisTarget, options: RedisConnectionOptions): Record<string, unknown> {
  const common: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: options.connectTimeoutMs ?? 5000,
    retryStrategy: (times: number) => Math.min(50 * times, 1000),
    // Commands issued in the same event-loop turn (one quota script per metered request) go out
    // in one socket write instead of one write each.
    enableAutoPipelining: true,
    autoPipeliningIgnoredCommands: options.unpipelined ?? [],
  };
  if (target.kind === "single") return { url: target.url, base: options.base, ...common };
  const auth = {
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: {} } : {}),
  };
  if (target.kind === "sentinel") {
    return {
      base: options.base,
      ...common,
      ...auth,
      sentinels: target.sentinels,
      name: target.name,
      sentinelRetryStrategy: (times: number) => Math.min(100 * times, 1000),
      // No `failoverDetector`: with it, an instance under load stayed disconnected after the
      // promotion (test/cluster/failover.e2e.test.ts); a failed command's reconnect asks the
      // sentinels for the primary anyway.
      // A demoted primary refuses writes with READONLY, and had not run them: reconnect (through
      // the sentinels, to the new primary) and send the command again.
      reconnectOnError: (error: Error) => (error.message.startsWith("READONLY") ? 2 : false),
    } satisfies RedisOptions & Record<string, unknown>;
  }
  const clusterOptions: ClusterOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    // Off on a cluster: ioredis groups auto-pipelined commands by their first argument, which for
    // a script call is the key count, not a key, and mixes slots (ioredis issue 2109).
    enableAutoPipelining: false,
    clusterRetryStrategy: (times: number) => Math.min(100 * times, 1000),
    // During a failover a slot answers CLUSTERDOWN or moves: retry briefly, then fail the
    // command (503) rather than hang.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    maxRedirections: 8,
    slotsRefreshTimeout: 2000,
    // A node's own connection keeps ioredis' defaults for queueing (the cluster's first slot
    // lookup goes through a node connection not yet open); the command timeout still bounds a wait.
    redisOptions: { maxRetriesPerRequest: 1, commandTimeout: common.commandTimeout, connectTimeout: common.connectTimeout, ...auth },
  };
  return { cluster: target.nodes, clusterOptions, base: options.base };
}
