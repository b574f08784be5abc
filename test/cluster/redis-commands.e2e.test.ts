/**
 * What a metered request sends to Redis once its key record is cached: one script call (the quota
 * check) and nothing else: no record read, no write confirmed by a replica. Counted on the wire
 * with MONITOR on the shared Redis, keeping only the commands that name this file's key prefix,
 * so other suites on the same Redis do not count. Only the count is asserted, never a time.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type MonitoredCommand, monitorRedis } from "../helpers/redis-monitor.ts";
import { CLUSTER_ADMIN_KEY, deletePrefix, postJson, SHARED_REDIS_URL, startInstances, uniquePrefix } from "./_cluster.ts";

type Seen = MonitoredCommand;

describe("Redis commands per metered request", () => {
  const prefix = uniquePrefix();
  let instance: ChildServer;
  let key: string;

  beforeAll(async () => {
    const dist = buildContentTo(writeFixtureContent());
    instance = (await startInstances(1, { DIST_DIR: dist, REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix }))[0]!;
    const issued = await postJson(
      `${instance.url}/api/keys`,
      { vertical: "travel", label: "commands" },
      { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` },
    );
    expect(issued.status).toBe(201);
    key = issued.body.keys[0].key;
  }, 120_000);

  afterAll(async () => {
    await instance?.kill("SIGTERM");
    await deletePrefix(SHARED_REDIS_URL, prefix);
  });

  const read = async () => {
    const res = await fetch(`${instance.url}/api/demo?vertical=travel&node=trv-m1`, { headers: { "x-service-key": key } });
    await res.arrayBuffer();
    return res.status;
  };

  /** The commands naming this file's prefix while `work` runs. */
  const watch = async (work: () => Promise<void>): Promise<Seen[]> => {
    const seen: Seen[] = [];
    const monitor = await monitorRedis(SHARED_REDIS_URL, (command) => {
      if (command.args.some((a) => a.includes(prefix))) seen.push(command);
    });
    const client = new Redis(SHARED_REDIS_URL);
    try {
      await work();
      // MONITOR reports a command after running it: a marker sent last arrives after the rest.
      const marker = `${prefix}monitor-end`;
      await client.get(marker);
      for (let i = 0; i < 100 && !seen.some((s) => s.args.includes(marker)); i++) await new Promise((r) => setTimeout(r, 20));
      return seen.filter((s) => !s.args.includes(marker));
    } finally {
      monitor.close();
      client.disconnect();
    }
  };

  it("is one script call with the key record cached, and nothing else", async () => {
    // Warm: the key record is read once and cached.
    for (let i = 0; i < 3; i++) expect(await read()).toBe(200);
    const requests = 20;
    const seen = await watch(async () => {
      for (let i = 0; i < requests; i++) expect(await read()).toBe(200);
    });
    const sent = seen.filter((s) => s.source !== "lua");
    const scripts = sent.filter((s) => /^eval(sha)?$/i.test(s.args[0]!));
    // Reads by the clock, not by the request: the revision of the key records (at most once a
    // second, whatever the traffic) and the release pointer the instance follows.
    const revision = sent.filter((s) => s.args[0]!.toLowerCase() === "hmget" && s.args[1] === `${prefix}c:keys:revision`);
    const pointer = sent.filter((s) => s.args[0]!.toLowerCase() === "get" && s.args[1] === `${prefix}rel:current`);
    const other = sent.filter((s) => !scripts.includes(s) && !revision.includes(s) && !pointer.includes(s));
    expect(other.map((s) => s.args.slice(0, 2).join(" "))).toEqual([]);
    expect(scripts).toHaveLength(requests);
    expect(revision.length).toBeLessThanOrEqual(2);
    // Inside each script: one read and one write per window (hour, day, month), no more.
    expect(seen.filter((s) => s.source === "lua").length).toBeLessThanOrEqual(6 * requests);
  });

  it("a burst of concurrent requests shares script calls instead of adding one each", async () => {
    const burst = 64;
    const seen = await watch(async () => {
      const statuses = await Promise.all(Array.from({ length: burst }, read));
      expect(statuses.every((s) => s === 200)).toBe(true);
    });
    const scripts = seen.filter((s) => s.source !== "lua" && /^eval(sha)?$/i.test(s.args[0]!));
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.length).toBeLessThan(burst);
  });
});
