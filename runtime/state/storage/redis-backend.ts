/**
 * Shared state on Redis (or Valkey, a managed Redis): what lets several runtime instances behind a
 * load balancer stay exactly as correct as the embedded SQLite store.
 *
 * - Plain records go through unstorage's redis driver; its ioredis client is reused (one
 *   connection) for the atomic primitives, each of which is ONE Lua script: a script runs as one
 *   atomic step on the server, so no other instance's command interleaves between "check every
 *   window" and "increment all of them".
 * - Expiry follows the injected clock, like the SQLite store: each counter or once-entry keeps its
 *   logical expiry next to its value and the script compares it with `now`. Redis' own expiry
 *   (PEXPIREAT a day after the logical one) only collects garbage.
 * - Keys: `<prefix>c:<key>` counters, `<prefix>o:<key>` once-entries, `<prefix>l:{<list>}:seq|pos`
 *   ordered lists, `<prefix>r:<key>` records. Quota keys carry a hash tag (`q:{k:<id>}:…`, see
 *   metering/quota.ts) and a list's two keys share `{<list>}`, so every script call stays in one
 *   Redis Cluster slot. The prefix must not contain `{`.
 * - Outage: the client never queues commands while disconnected (`enableOfflineQueue: false`) and
 *   times out slow ones, so a request fails within `commandTimeoutMs` instead of hanging; every
 *   failure surfaces as the catalogue's 503 `store_unavailable`. ioredis reconnects on its own.
 */

import calculateSlot from "cluster-key-slot";
import { Cluster } from "ioredis";
import { createStorage, type Storage } from "unstorage";
import { apiError } from "../../shared/errors.ts";
import { type ConsumeResult, type CounterWindow, EXPIRED_COUNTER_KEPT_MS, type InsertOnceResult, type StateBackend } from "./backend.ts";
import { connectRedisDriver } from "./redis-connection.ts";
import { CONSUME_BATCH_SCRIPT, createConsumeBatcher } from "./redis-consume-batch.ts";
import type { DurableWriteOptions } from "./redis-durable.ts";

export interface RedisBackendOptions {
  /** A locator (see redis-connection.ts): one node, a cluster or a sentinel set. */
  url: string;
  /** Namespace of every key this backend touches, e.g. `vkr:`; must not contain `{`. */
  prefix: string;
  /** Longest wait for one command before it fails (and the request answers 503). */
  commandTimeoutMs?: number;
  /** Longest wait for the first connection before startup fails. */
  connectTimeoutMs?: number;
  /** Replica confirmation of the writes that must survive a failover (see redis-durable.ts); default 1 replica, 1000 ms. */
  wait?: DurableWriteOptions;
}

/** Logical expiry + this = when Redis may drop the key (the batch script's literal day is the same). */
const GC_SLACK_MS = EXPIRED_COUNTER_KEPT_MS;

/**
 * Counters of limits, not of money: their writes are not confirmed by a replica (a failover may
 * forget the last moments of them, which lets a client through a little more; see
 * docs/operations.md). Every other write (records, insert-once entries, positions, ledgers, key
 * and account counters) is.
 */
const ASYNC_COUNTER_PREFIXES = ["q:", "rate:", "trialrate:", "adminfail:", "adminwrong:", "interest-anon:", "interest-new:"];

/**
 * Connects (waiting for the first ready connection) and returns the backend.
 * @example await createRedisBackend({ url: "redis://127.0.0.1:6379", prefix: "vkr:" })
 */
export async function createRedisBackend(options: RedisBackendOptions): Promise<StateBackend> {
  if (options.prefix.includes("{")) throw new Error("[redis-backend] the key prefix must not contain '{'");
  const connection = await connectRedisDriver({
    url: options.url,
    base: `${options.prefix}r`,
    commandTimeoutMs: options.commandTimeoutMs ?? 2000,
    connectTimeoutMs: options.connectTimeoutMs ?? 5000,
    label: "redis-backend",
    // The grouped quota script is already one call per turn: a pipeline around it would only add work.
    unpipelined: ["vkrConsumeBatch"],
    durable: options.wait ?? { replicas: 1, timeoutMs: 1000 },
  });
  const { driver, client } = connection;
  const durable = connection.durable!;
  for (const [name, lua] of Object.entries(SCRIPTS)) {
    client.defineCommand(name, { lua });
    durable.client.defineCommand(name, { lua });
  }
  const run = client as unknown as ScriptCommands;
  const clustered = client instanceof Cluster;

  const p = options.prefix;
  // On a cluster a counter key without a hash tag is placed by its last segment (the id our key
  // builders end with: a token's ledger and its batch counters share it); one node keeps its names.
  const counterKey = clustered ? (key: string) => `${p}c:${_slotted(key)}` : (key: string) => `${p}c:${key}`;
  const onceKey = (key: string) => `${p}o:${key}`;
  const listKeys = (list: string) => [`${p}l:{${list}}:seq`, `${p}l:{${list}}:pos`] as const;
  /** A multi-key script whose keys span slots is a bug in a key builder: refuse it by name. */
  const oneSlot = clustered
    ? (keys: readonly string[]) => {
        if (keys.length > 1 && new Set(keys.map(calculateSlot)).size > 1)
          throw new Error(`[redis-backend] keys of one script span Redis Cluster slots: ${keys.join(", ")}`);
      }
    : () => {};
  const durableScript = async <T>(name: keyof ScriptCommands, keys: string[], args: string[]): Promise<T> => {
    oneSlot(keys);
    const [reply] = await durable.write(
      keys[0]!,
      (pipe) => void (pipe as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(keys.length, ...keys, ...args),
    );
    return reply as T;
  };

  const consumeAsync = createConsumeBatcher({
    send: (keys, args) => run.vkrConsumeBatch(keys.length, ...keys, ...args),
    counterKey,
    ...(clustered
      ? {
          groupOf: (keys: readonly string[]) => {
            oneSlot(keys);
            return calculateSlot(keys[0]!);
          },
        }
      : {}),
  });

  const records = _guardStorage(createStorage({ driver }));
  return {
    kind: "redis",
    records,
    recordPages: async function* (prefix, pageSize) {
      const names = await records.getKeys(prefix);
      for (let i = 0; i < names.length; i += pageSize) yield names.slice(i, i + pageSize);
    },
    consume: (windows: CounterWindow[], cost: number, now: number) =>
      _guard(async (): Promise<ConsumeResult> => {
        if (windows.length === 0) return { admitted: true, counts: [], deniedIndex: -1 };
        if (windows.every((w) => _isAsyncCounter(w.key))) return consumeAsync(windows, cost, now);
        const args = [String(cost), String(now)];
        for (const w of windows) args.push(Number.isFinite(w.limit) ? String(w.limit) : "inf", String(w.expiresAt), _gcAt(w.expiresAt));
        const keys = windows.map((w) => counterKey(w.key));
        const reply = await durableScript<number[]>("vkrConsume", keys, args);
        const [admitted, denied, ...counts] = reply;
        return { admitted: admitted === 1, counts: counts.map(Number), deniedIndex: denied ?? -1 };
      }),
    readCounters: (keys, now) =>
      _guard(async () => {
        if (keys.length === 0) return [];
        // Separate commands, not one pipeline: a cluster pipelines only keys of one slot, and
        // auto-pipelining still sends the commands of one node in one write.
        const replies = await Promise.all(keys.map((key) => client.hmget(counterKey(key), "n", "e")));
        return replies.map(([n, e]) => (n !== null && Number(e) > now ? Number(n) : 0));
      }),
    insertOnce: (key, value, expiresAt, now) =>
      _guard(async (): Promise<InsertOnceResult> => {
        const expiry = expiresAt === null ? "" : String(expiresAt);
        const gc = expiresAt === null ? "" : _gcAt(expiresAt);
        const [created, stored] = await durableScript<[number, string]>("vkrInsertOnce", [onceKey(key)], [value, expiry, gc, String(now)]);
        return { created: created === 1, value: stored };
      }),
    removeOnce: (key, ifValue) =>
      _guard(async () => {
        const k = onceKey(key);
        if (ifValue !== undefined) return (await durableScript<number>("vkrRemoveOnceIf", [k], [ifValue])) > 0;
        const [removed] = await durable.write(k, (pipe) => void pipe.unlink(k));
        return (removed as number) > 0;
      }),
    claimPosition: (list, member) =>
      _guard(async () => {
        const [position, created] = await durableScript<[number, number]>("vkrClaimPosition", [...listKeys(list)], [member]);
        return { position, created: created === 1 };
      }),
    countList: (list) => _guard(async () => Number((await client.get(listKeys(list)[0])) ?? 0)),
    ping: async () => {
      try {
        return (await client.ping()) === "PONG";
      } catch {
        return false;
      }
    },
    close: async () => {
      await Promise.all(
        [client, durable.client].map(async (c) => {
          if (c.status === "ready") await c.quit().catch(() => c.disconnect());
          else c.disconnect();
        }),
      );
    },
  };
}

// --- Internal helpers ---

interface ScriptCommands {
  vkrConsumeBatch(numKeys: number, ...keysAndArgs: string[]): Promise<number[]>;
  vkrConsume(numKeys: number, ...keysAndArgs: string[]): Promise<number[]>;
  vkrInsertOnce(numKeys: number, ...keysAndArgs: string[]): Promise<[number, string]>;
  vkrClaimPosition(numKeys: number, ...keysAndArgs: string[]): Promise<[number, number]>;
  vkrRemoveOnceIf(numKeys: number, ...keysAndArgs: string[]): Promise<number>;
}

/**
 * Values travel as strings in ARGV (never baked into the script text) so EVALSHA reuses one
 * cached script; epoch milliseconds are compared with tonumber (exact below 2^53).
 */
const SCRIPTS = {
  // Limit counters, grouped checks (redis-consume-batch.ts).
  vkrConsumeBatch: CONSUME_BATCH_SCRIPT,
  // KEYS: counters. ARGV: cost, now, then per window: limit ("inf" = count only), expiresAt, gcAt ("" = never).
  // 1. read every counter (an expired one counts as 0); 2. deny if any would pass its limit,
  // touching nothing; 3. otherwise add the cost to all of them.
  vkrConsume: `
local cost = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local counts = {}
local fresh = {}
local stored = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('HMGET', key, 'n', 'e')
  if v[1] and tonumber(v[2]) > now then
    counts[i] = tonumber(v[1])
    fresh[i] = false
    stored[i] = v[2]
  else
    counts[i] = 0
    fresh[i] = true
  end
end
for i = 1, #KEYS do
  local limit = ARGV[3 * i]
  if limit ~= 'inf' and counts[i] + cost > tonumber(limit) then
    return {0, i - 1, unpack(counts)}
  end
end
for i, key in ipairs(KEYS) do
  if fresh[i] then
    redis.call('DEL', key)
    redis.call('HSET', key, 'n', ARGV[1], 'e', ARGV[3 * i + 1])
  else
    redis.call('HINCRBY', key, 'n', ARGV[1])
  end
  -- A window's expiry is the same on every request until it rolls over: rewrite it (and the
  -- garbage-collection time derived from it) only when it changed, so a metered request is one
  -- write per counter instead of three.
  if fresh[i] or stored[i] ~= ARGV[3 * i + 1] then
    if not fresh[i] then redis.call('HSET', key, 'e', ARGV[3 * i + 1]) end
    if ARGV[3 * i + 2] ~= '' then redis.call('PEXPIREAT', key, ARGV[3 * i + 2]) end
  end
  counts[i] = counts[i] + cost
end
return {1, -1, unpack(counts)}
`,
  // KEYS: the entry. ARGV: value, expiresAt ("" = never), gcAt ("" = never), now.
  vkrInsertOnce: `
local v = redis.call('HMGET', KEYS[1], 'v', 'e')
if v[1] and (v[2] == '' or tonumber(v[2]) > tonumber(ARGV[4])) then
  return {0, v[1]}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'e', ARGV[2])
if ARGV[3] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[3]) end
return {1, ARGV[1]}
`,
  // KEYS: the entry. ARGV: the value it must still hold. Compare and delete in one step.
  vkrRemoveOnceIf: `
if redis.call('HGET', KEYS[1], 'v') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`,
  // KEYS: the list's sequence and its member → position hash. ARGV: member.
  vkrClaimPosition: `
local existing = redis.call('HGET', KEYS[2], ARGV[1])
if existing then return {tonumber(existing), 0} end
local position = redis.call('INCR', KEYS[1])
redis.call('HSET', KEYS[2], ARGV[1], position)
return {position, 1}
`,
} as const;

function _isAsyncCounter(key: string): boolean {
  return ASYNC_COUNTER_PREFIXES.some((prefix) => key.startsWith(prefix));
}

/** `a:b:c` → `a:b:{c}`; a key with a tag keeps it. */
function _slotted(key: string): string {
  if (key.includes("{")) return key;
  const cut = key.lastIndexOf(":") + 1;
  return `${key.slice(0, cut)}{${key.slice(cut)}}`;
}

function _gcAt(expiresAt: number): string {
  // Redis collects on its real clock while validity follows the injected one; an injected clock
  // behind real time (a test's, a replay's) must not have its live entries collected at once.
  const at = Math.max(expiresAt, Date.now()) + GC_SLACK_MS;
  return Number.isSafeInteger(at) ? String(at) : "";
}

/** Any failure of the store becomes the catalogue's 503, never a 500 and never a silent pass. */
async function _guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw _unavailable(error);
  }
}

function _unavailable(cause: unknown) {
  const error = apiError("store_unavailable", {
    detail: "The state store is unreachable; retry shortly.",
    headers: { "retry-after": "5" },
  });
  (error as { cause?: unknown }).cause = cause;
  return error;
}

/** The records storage with every call mapped through `_guard`. */
function _guardStorage(storage: Storage): Storage {
  return new Proxy(storage, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw _unavailable(error);
        }
        return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(_unavailable(error))) : result;
      };
    },
  });
}
