/**
 * Three runtime processes on one Redis stay exactly as correct as one process. A trial
 * key hammered with 600 concurrent requests spread over the three gets exactly its hourly 200,
 * every instance reads the same usage, and waitlist joins spread over the instances get unique,
 * consecutive positions. The same on a real Redis Cluster (three primaries, three replicas)
 * started by this file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { type RedisTopology, startRedisCluster } from "../helpers/redis-topology.ts";
import { deletePrefix, getJson, postJson, SHARED_REDIS_URL, startInstances, uniquePrefix } from "./_cluster.ts";

for (const topology of ["one Redis", "a Redis Cluster"] as const) {
  describe(`three instances on ${topology}`, () => {
    const prefix = uniquePrefix();
    let instances: ChildServer[] = [];
    let cluster: RedisTopology | null = null;
    let redisUrl = SHARED_REDIS_URL;

    beforeAll(async () => {
      if (topology === "a Redis Cluster") redisUrl = (cluster = await startRedisCluster()).url;
      const dist = buildContentTo(writeFixtureContent());
      // Many agents from one test client: the per-client new-identity limit is not under test here.
      instances = await startInstances(3, {
        DIST_DIR: dist,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        NEW_IDENTITIES_PER_CLIENT_DAY: "1000000",
      });
    }, 120_000);

    afterAll(async () => {
      await Promise.all(instances.map((i) => i.kill("SIGTERM")));
      if (cluster) await cluster.stop();
      else await deletePrefix(SHARED_REDIS_URL, prefix);
    });

    it("report the Redis store as ready", async () => {
      for (const instance of instances)
        expect((await getJson(`${instance.url}/readyz`)).body).toMatchObject({ status: "ready", store: "redis" });
    });

    it("600 concurrent requests on one fresh trial key admit exactly the hourly 200, and every instance reads 200", async () => {
      const trial = await postJson(`${instances[1]!.url}/api/trial`, { agent_id: "cluster-quota-agent", vertical: "travel" });
      expect(trial.status).toBe(200);
      const key: string = trial.body.key;
      const statuses = await Promise.all(
        Array.from({ length: 600 }, (_, i) =>
          fetch(`${instances[i % 3]!.url}/api/demo?vertical=travel&node=trv-m1`, { headers: { "x-service-key": key } }).then(
            async (res) => {
              await res.arrayBuffer();
              return res.status;
            },
          ),
        ),
      );
      const tally = statuses.reduce<Record<number, number>>((t, s) => ({ ...t, [s]: (t[s] ?? 0) + 1 }), {});
      expect(tally).toEqual({ 200: 200, 429: 400 });
      for (const instance of instances) {
        const view = await getJson(`${instance.url}/api/keys`, { "x-service-key": key });
        expect(view.status).toBe(200);
        expect(view.body.usage).toMatchObject({ hour: 200, day: 200, total_trial: 200 });
      }
    });

    it("a trial created on one instance is a duplicate on every other (one active trial per agent)", async () => {
      const results = await Promise.all(
        instances.map((i) => postJson(`${i.url}/api/trial`, { agent_id: "cluster-dup-agent", vertical: "travel" })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    });

    it("waitlist joins spread over the instances get unique consecutive positions", async () => {
      const joins = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          postJson(`${instances[i % 3]!.url}/api/waitlist`, { vertical: "legal", agent_id: `cluster-wl-${i}` }),
        ),
      );
      expect(joins.every((j) => j.status === 200)).toBe(true);
      const positions = joins.map((j) => j.body.position as number).sort((a, b) => a - b);
      expect(positions).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
      // A repeat join on another instance keeps the original position.
      const again = await postJson(`${instances[2]!.url}/api/waitlist`, { vertical: "legal", agent_id: "cluster-wl-0" });
      expect(again.body).toMatchObject({ position: joins[0]!.body.position, already_registered: true, waitlist_registered: 90 });
    });
  });
}
