/**
 * Zero-downtime publishing: while a steady load runs against two instances, a new build
 * (one node added, one updated) is published to the shared release store; no request fails, both
 * instances serve it within the poll interval and /v1/delta shows exactly the two new entries.
 * Rollback goes back to the previous release; a corrupted release is refused while the build in
 * service keeps serving. The same on one Redis and on a real Redis Cluster (three primaries, three
 * replicas) started by this file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveReleaseStore } from "../../runtime/config.ts";
import { createReleaseStore, releaseFileKey } from "../../runtime/state/releases/release-store.ts";
import { activateRelease, uploadRelease } from "../../scripts/publish-release.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { type FixtureOptions, writeFixtureContent } from "../helpers/fixture-content.ts";
import { type RedisTopology, startRedisCluster } from "../helpers/redis-topology.ts";
import { CLUSTER_ADMIN_KEY, deletePrefix, getJson, postJson, SHARED_REDIS_URL, startInstances, uniquePrefix } from "./_cluster.ts";
import { runPublish } from "./_publish.ts";

const POLL_MS = 200;
/** Poll interval plus the time to fetch and verify a small release on a loaded test machine. */
const SWAP_BOUND_MS = POLL_MS + 2500;
const CHANGED_AT = "2026-11-21T08:00:00Z";

const V2: FixtureOptions = {
  extraNodes: { travel: [{ id: "trv-m8", order: 8, next: [] }] },
  dates: (_vertical, node) =>
    node.id === "trv-m8" ? { created: CHANGED_AT, updated: CHANGED_AT } : node.id === "trv-m2" ? { updated: CHANGED_AT } : undefined,
};
const V3: FixtureOptions = {
  ...V2,
  extraNodes: {
    travel: [
      { id: "trv-m8", order: 8, next: [] },
      { id: "trv-m9", order: 9, next: [] },
    ],
  },
};

const buildIdOf = (dist: string) =>
  (JSON.parse(readFileSync(join(dist, "data", "manifest.json"), "utf8")) as { build_id: string }).build_id;

for (const topology of ["one Redis", "a Redis Cluster"] as const) {
  const prefix = uniquePrefix();
  let cluster: RedisTopology | null = null;
  let storeEnv: Record<string, string> = { REDIS_URL: SHARED_REDIS_URL, REDIS_PREFIX: prefix };
  let dists: { v1: string; v2: string; v3: string };
  let instances: ChildServer[] = [];
  let member: string;
  let load: { stop(): Promise<{ ok: number; failures: string[] }> };

  // Hooks inside the describe: the second topology builds its content (synchronously) only once the
  // first one's load has stopped; at file level both ran first, and the blocked test process then
  // reused keep-alive sockets the instances had closed meanwhile ("other side closed").
  describe(`publishing under load on ${topology}`, () => {
    beforeAll(async () => {
      if (topology === "a Redis Cluster") {
        cluster = await startRedisCluster();
        storeEnv = { REDIS_URL: cluster.url, REDIS_PREFIX: prefix };
      }
      dists = {
        v1: buildContentTo(writeFixtureContent()),
        v2: buildContentTo(writeFixtureContent(undefined, V2)),
        v3: buildContentTo(writeFixtureContent(undefined, V3)),
      };
      expect((await runPublish(["--dist", dists.v1], storeEnv)).code).toBe(0);
      instances = await startInstances(2, {
        ...storeEnv,
        DIST_DIR: dists.v1,
        RELEASE_POLL_MS: String(POLL_MS),
        LOG_LEVEL: "info",
        // The load's free reads (the index) come from one client; on Redis its per-minute limit is shared by both instances.
        ANON_RATE_PER_MINUTE: "1000000",
        RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 1e9, daily_standard: 1e9, per_key_monthly: 1e9 }),
      });
      member = (await postJson(`${instances[0]!.url}/api/keys`, { vertical: "all" }, { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` })).body
        .keys[0].key;
      load = startLoad(instances, member);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(instances.map((i) => i.kill("SIGTERM")));
      if (cluster) await cluster.stop();
      else await deletePrefix(SHARED_REDIS_URL, prefix);
    }, 60_000);

    it("instances start on the current release", async () => {
      for (const instance of instances) expect((await getJson(`${instance.url}/readyz`)).body.build_id).toBe(buildIdOf(dists.v1));
    });

    it("a new build reaches both instances within the poll bound, and the change feed shows exactly its two entries", async () => {
      const published = await runPublish(["--dist", dists.v2], storeEnv);
      expect(published.output).toContain(`current release is ${buildIdOf(dists.v2)}`);
      const elapsed = await Promise.all(instances.map((i) => waitForBuild(i, buildIdOf(dists.v2))));
      for (const ms of elapsed) expect(ms).toBeLessThan(SWAP_BOUND_MS);
      for (const instance of instances) {
        const added = await getJson(`${instance.url}/api/demo?vertical=travel&node=trv-m8`, { "x-service-key": member });
        expect(added.status).toBe(200);
        const feed = await getJson(`${instance.url}/v1/delta?since=2026-11-15T00:00:00Z`, { "x-service-key": member });
        expect(feed.status).toBe(200);
        expect(feed.body.entries.map((e: { node_id: string; change: string }) => `${e.change} ${e.node_id}`).sort()).toEqual([
          "added trv-m8",
          "updated trv-m2",
        ]);
      }
    });

    it("rollback points every instance back to the previous release", async () => {
      const rolledBack = await runPublish(["--rollback"], storeEnv);
      expect(rolledBack.output).toContain(`current release is ${buildIdOf(dists.v1)}`);
      await Promise.all(instances.map((i) => waitForBuild(i, buildIdOf(dists.v1))));
      for (const instance of instances)
        expect((await getJson(`${instance.url}/api/demo?vertical=travel&node=trv-m8`, { "x-service-key": member })).status).toBe(404);
    });

    it("a corrupted release is refused and logged; the build in service keeps serving", async () => {
      const store = await createReleaseStore(resolveReleaseStore(storeEnv)!);
      try {
        const upload = await uploadRelease(store, dists.v3);
        const rel = "verticals/travel/nodes/trv-m9.json";
        const tampered = Buffer.from(readFileSync(join(dists.v3, "data", rel), "utf8").replace("trv-m9", "trv-mX"));
        await store.setItemRaw(releaseFileKey(upload.buildId, rel), tampered);
        await activateRelease(store, resolveReleaseStore(storeEnv)!, upload.buildId);
      } finally {
        await store.dispose();
      }
      await waitFor(() => instances.every((i) => i.output().includes("release refused")), SWAP_BOUND_MS);
      await new Promise((r) => setTimeout(r, 3 * POLL_MS));
      for (const instance of instances) {
        expect((await getJson(`${instance.url}/readyz`)).body.build_id).toBe(buildIdOf(dists.v1));
        expect(instance.output()).toContain("does not match its digest");
      }
    });

    it("no request of the steady load failed through all of it", async () => {
      const result = await load.stop();
      expect(result.failures).toEqual([]);
      expect(result.ok).toBeGreaterThan(100);
    });
  });
}

// --- Internal helpers ---

/** Eight workers looping over both instances: a metered node, the anonymous index, the status. */
function startLoad(targets: ChildServer[], key: string) {
  let stopped = false;
  let ok = 0;
  const failures: string[] = [];
  const paths = [
    "/api/demo?vertical=travel&node=trv-m1",
    "/api/demo?vertical=travel",
    "/api/status",
    "/api/demo?vertical=travel&node=trv-m2&lean=true",
  ];
  const worker = async (w: number) => {
    for (let i = w; !stopped; i++) {
      const url = targets[i % targets.length]!.url + paths[i % paths.length]!;
      try {
        const res = await fetch(url, { headers: { "x-service-key": key } });
        await res.arrayBuffer();
        if (res.status === 200) ok++;
        else failures.push(`${res.status} ${url}`);
      } catch (error) {
        failures.push(`${String(error)} ${url}`);
      }
    }
  };
  const workers = Array.from({ length: 8 }, (_, w) => worker(w));
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
      return { ok, failures };
    },
  };
}

/** Milliseconds until the instance reports `buildId` on /readyz. */
async function waitForBuild(instance: ChildServer, buildId: string): Promise<number> {
  const started = Date.now();
  await waitFor(async () => (await getJson(`${instance.url}/readyz`)).body.build_id === buildId, 10_000);
  return Date.now() - started;
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
