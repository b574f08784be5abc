/**
 * Redis outage: two instances on a Redis of their own (append-only, fsync on every write,
 * started here on a free port in a temp folder; the machine's shared Redis is never touched).
 * Redis is killed in the middle of a load: metered requests answer 503 `store_unavailable`,
 * nothing answers 500, free requests keep working and no metered content is served uncounted.
 * Redis is restarted: the instances recover on their own and every acknowledged write is there.
 * A hung Redis (stopped, connection open) is bounded by the client's command timeout.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { type ChildServer, freePort } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { CLUSTER_ADMIN_KEY, getJson, postJson, startInstances } from "./_cluster.ts";

const redisDir = mkdtempSync(join(tmpdir(), "vkr-redis-fault-"));
let redisPort: number;
let redis: ChildProcess | null = null;
let instances: ChildServer[] = [];
let member: string;

beforeAll(async () => {
  redisPort = await freePort();
  redis = await startRedis(redisPort, redisDir);
  instances = await startInstances(2, {
    DIST_DIR: buildContentTo(writeFixtureContent()),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: 1e9, daily_standard: 1e9, per_key_monthly: 1e9 }),
  });
  member = (await postJson(`${instances[0]!.url}/api/keys`, { vertical: "travel" }, { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` })).body
    .keys[0].key;
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.kill("SIGTERM")));
  await stopRedis(redis);
});

describe("Redis stops mid-load and comes back", () => {
  it("503 for metered requests, never 500, free requests unaffected; recovery without restart; no acknowledged write lost", async () => {
    const startedAt = Date.now();
    const tally = { meteredOk: 0, metered503: 0, freeOk: 0, other: [] as string[] };
    const acknowledgedKeys: string[] = [];
    let outage = false;
    let stopped = false;
    const outageStatuses = new Set<string>();

    const worker = async (w: number) => {
      for (let i = w; !stopped; i++) {
        const instance = instances[i % instances.length]!;
        try {
          if (i % 5 === 0) {
            // An acknowledged write: a key issued with 201 must survive the outage.
            const res = await postJson(
              `${instance.url}/api/keys`,
              { vertical: "travel", label: "fault" },
              { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` },
            );
            if (res.status === 201) acknowledgedKeys.push(...res.body.keys.map((k: { key: string }) => k.key));
            else if (res.status !== 503) tally.other.push(`keys ${res.status}`);
          } else if (i % 2 === 0) {
            const res = await fetch(`${instance.url}/api/demo?vertical=travel&node=trv-m3`, { headers: { "x-service-key": member } });
            const body = await res.text();
            if (res.status === 200) tally.meteredOk++;
            else if (
              res.status === 503 &&
              res.headers.get("content-type")?.includes("problem+json") &&
              JSON.parse(body).code === "store_unavailable"
            )
              tally.metered503++;
            else tally.other.push(`metered ${res.status} ${body.slice(0, 120)}`);
            if (outage) outageStatuses.add(`metered ${res.status}`);
          } else {
            const res = await fetch(`${instance.url}/api/demo?vertical=travel`);
            await res.arrayBuffer();
            if (res.status === 200) tally.freeOk++;
            else tally.other.push(`free ${res.status}`);
            if (outage) outageStatuses.add(`free ${res.status}`);
          }
        } catch (error) {
          tally.other.push(String(error));
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, w) => worker(w));

    // Wait for traffic to flow rather than a fixed time: a loaded CI machine may serve slowly.
    for (const until = Date.now() + 15_000; tally.meteredOk <= 20 && Date.now() < until; ) await sleep(100);
    const beforeOutage = tally.meteredOk;
    expect(beforeOutage).toBeGreaterThan(20);
    await stopRedis(redis, "SIGKILL");
    await sleep(200); // let in-flight calls settle on the dead connection
    outage = true;
    const okAtOutageStart = tally.meteredOk;
    await sleep(1500);
    outage = false;
    // An outage is no reason for an instance to exit; if one did, its log says why.
    expect(exitedOutputs()).toEqual([]);
    // While Redis was down, not one metered request was served (the key cache cannot bypass the meter).
    expect(tally.meteredOk).toBe(okAtOutageStart);
    expect([...outageStatuses].sort()).toEqual(["free 200", "metered 503"]);
    for (const instance of instances) expect((await getJson(`${instance.url}/readyz`)).status).toBe(503);

    redis = await startRedis(redisPort, redisDir);
    const recoveredAt = Date.now();
    for (const instance of instances) {
      await waitFor(
        async () =>
          (await fetch(`${instance.url}/api/demo?vertical=travel&node=trv-m1`, { headers: { "x-service-key": member } })).status === 200,
        10_000,
      );
    }
    const recoveryMs = Date.now() - recoveredAt;
    await sleep(300);
    stopped = true;
    await Promise.all(workers);

    expect(tally.other).toEqual([]);
    expect(tally.metered503).toBeGreaterThan(0);
    expect(recoveryMs).toBeLessThan(5000);
    // Every key acknowledged with 201, before or after the outage, still verifies.
    expect(acknowledgedKeys.length).toBeGreaterThan(5);
    const verified = await Promise.all(acknowledgedKeys.map((k) => getJson(`${instances[1]!.url}/api/verify`, { "x-service-key": k })));
    expect(verified.filter((v) => v.body.valid !== true)).toEqual([]);
    // Every metered 200 was counted; the counter can exceed them only by calls whose reply was lost with Redis.
    // The smallest quota window the whole test fell into: a run across a UTC hour (it happened in CI)
    // would otherwise compare every served read with the new hour's count alone.
    const usage = (await getJson(`${instances[0]!.url}/api/keys`, { "x-service-key": member })).body.usage[
      windowSpanning(startedAt, Date.now())
    ] as number;
    const servedWithKey = tally.meteredOk + instances.length; // + the recovery probes
    expect(usage).toBeGreaterThanOrEqual(servedWithKey);
    expect(usage - servedWithKey).toBeLessThanOrEqual(tally.metered503);
  });

  it("a hung Redis (SIGSTOP) costs a metered request at most the command timeout, then 503; SIGCONT recovers", async () => {
    const metered = () => fetch(`${instances[0]!.url}/api/demo?vertical=travel&node=trv-m2`, { headers: { "x-service-key": member } });
    expect((await metered()).status).toBe(200);
    redis!.kill("SIGSTOP");
    try {
      await sleep(1100); // past the 1 s key cache, so the key lookup needs Redis too
      const started = Date.now();
      const res = await metered();
      expect(res.status).toBe(503);
      expect(((await res.json()) as { code: string }).code).toBe("store_unavailable");
      expect(Date.now() - started).toBeLessThan(4500);
      expect((await fetch(`${instances[0]!.url}/api/demo?vertical=travel`)).status).toBe(200);
    } finally {
      redis!.kill("SIGCONT");
    }
    await waitFor(async () => (await metered()).status === 200, 10_000);
  });
});

// --- Internal helpers ---

function exitedOutputs(): string[] {
  return instances.filter((i) => i.proc.exitCode !== null || i.proc.signalCode !== null).map((i) => i.output());
}

async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const proc = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", ""],
    { stdio: "ignore" },
  );
  await waitFor(async () => {
    if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
    const { Redis } = await import("ioredis");
    const probe = new Redis(port, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => {});
    try {
      await probe.connect();
      return (await probe.ping()) === "PONG";
    } catch {
      return false;
    } finally {
      probe.disconnect();
    }
  }, 10_000);
  return proc;
}

async function stopRedis(proc: ChildProcess | null, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once("exit", () => resolve());
    proc.kill(signal);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** `hour` if both instants are in one UTC hour, else `day` if in one UTC day, else `month`. */
function windowSpanning(from: number, to: number): "hour" | "day" | "month" {
  if (Math.floor(from / 3_600_000) === Math.floor(to / 3_600_000)) return "hour";
  if (Math.floor(from / 86_400_000) === Math.floor(to / 86_400_000)) return "day";
  return "month";
}
