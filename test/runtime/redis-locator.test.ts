/**
 * One Redis locator for every topology: the environment's REDIS_URL, REDIS_CLUSTER_NODES or
 * REDIS_SENTINELS (+ REDIS_SENTINEL_NAME, REDIS_PASSWORD) become one string that the state store,
 * the release store and the CLI all carry, and that the connection reads back as the same topology.
 */
import { describe, expect, it } from "vitest";
import { ConfigError, redisLocator, resolveRuntimeConfig } from "../../runtime/config.ts";
import { parseRedisLocator, redactRedisUrl } from "../../runtime/state/storage/redis-connection.ts";

describe("Redis locator", () => {
  it("builds a cluster or sentinel locator from the list variables, with the password encoded", () => {
    expect(redisLocator({ REDIS_CLUSTER_NODES: "10.0.0.1:6379, 10.0.0.2:6380" })).toBe("redis+cluster://10.0.0.1:6379,10.0.0.2:6380");
    const sentinel = redisLocator({ REDIS_SENTINELS: "s1:26379,s2:26379", REDIS_SENTINEL_NAME: "my main", REDIS_PASSWORD: "p@ss:w/rd" })!;
    expect(parseRedisLocator(sentinel)).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "s2", port: 26379 },
      ],
      name: "my main",
      password: "p@ss:w/rd",
      tls: false,
    });
    expect(redactRedisUrl(sentinel)).not.toContain("p%40ss");
  });

  it("reads the URL forms back as their topology", () => {
    expect(parseRedisLocator("redis://127.0.0.1:6379/2")).toEqual({ kind: "single", url: "redis://127.0.0.1:6379/2" });
    expect(parseRedisLocator("rediss+cluster://user:secret@a:1,[::1]:2")).toEqual({
      kind: "cluster",
      nodes: [
        { host: "a", port: 1 },
        { host: "::1", port: 2 },
      ],
      username: "user",
      password: "secret",
      tls: true,
    });
    expect(() => parseRedisLocator("redis+sentinel://a:26379")).toThrow(/master name/);
    expect(() => parseRedisLocator("http://a:1")).toThrow(/not a Redis locator/);
  });

  it("refuses two topologies at once, a sentinel list without its name and a node without a port", () => {
    expect(() => resolveRuntimeConfig({ REDIS_URL: "redis://a:1", REDIS_CLUSTER_NODES: "b:2" })).toThrow(ConfigError);
    expect(() => resolveRuntimeConfig({ REDIS_SENTINELS: "a:26379" })).toThrow(/REDIS_SENTINEL_NAME/);
    expect(() => resolveRuntimeConfig({ REDIS_CLUSTER_NODES: "a" })).toThrow(/host:port/);
  });

  it("names the same Redis for state and releases, and reads the replica wait", () => {
    const config = resolveRuntimeConfig({ REDIS_CLUSTER_NODES: "a:1,b:2", REDIS_WAIT_REPLICAS: "2", REDIS_WAIT_TIMEOUT_MS: "250" });
    expect(config.redisUrl).toBe("redis+cluster://a:1,b:2");
    expect(config.releaseStore).toMatchObject({ kind: "redis", url: "redis+cluster://a:1,b:2" });
    expect(config.redisWait).toEqual({ replicas: 2, timeoutMs: 250 });
    expect(resolveRuntimeConfig({}).redisWait).toEqual({ replicas: 1, timeoutMs: 1000 });
  });
});
