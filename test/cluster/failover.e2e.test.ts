/**
 * A Redis primary dies under load. Two bundled instances share a real Redis Cluster (three
 * primaries, three replicas), then a primary with a replica behind three sentinels, each started
 * here. During a burst of paid purchases (agent_network tokens, charged through the payment
 * network's stand-in), admin key issuance and metered reads, the primary holding the metered key's
 * quota counters (and purchase records of the burst) is killed with SIGKILL; its replica is
 * promoted (by the cluster, by the sentinels). A buyer answered 503 retries with the same token
 * and Idempotency-Key, on the other instance, until the purchase is done.
 * Afterwards every purchase answered 201 exists (its replay repeats the same keys, charging
 * nothing) and its keys work, no token was charged twice, every key acknowledged with 201 exists
 * on both instances, nothing answered 500 (the window answers 503 `store_unavailable`), the
 * instances recover without a restart, and the quota's over-admission across the failover is
 * measured and bounded.
 */
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanCluster } from "../../runtime/state/storage/redis-connection.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import type { ChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { primaryPortFor, type RedisTopology, startRedisCluster, startRedisSentinel, waitFor } from "../helpers/redis-topology.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "../payments/stand-ins/agent-network.ts";
import { CLUSTER_ADMIN_KEY, getJson, postJson, startInstances, uniquePrefix } from "./_cluster.ts";

const HOURLY = 1500;
/** Workers buying (one purchase at a time each); one more issues admin keys, the rest read. */
const PURCHASE_WORKERS = 3;
const ADMIN = { authorization: `Bearer ${CLUSTER_ADMIN_KEY}` };

let network: AgentNetworkStandIn;
beforeAll(async () => {
  // A real network round trip per charge, so purchases are caught mid-charge by the kill too.
  network = await startAgentNetwork({ chargeLatencyMs: [5, 40] });
});
afterAll(async () => {
  await network?.close();
});

for (const kind of ["a Redis Cluster", "a sentinel set"] as const) {
  describe(`on ${kind}`, () => {
    const prefix = uniquePrefix();
    let cluster: RedisTopology;
    let instances: ChildServer[] = [];

    beforeAll(async () => {
      cluster = kind === "a Redis Cluster" ? await startRedisCluster() : await startRedisSentinel();
      instances = await startInstances(2, {
        DIST_DIR: buildContentTo(writeFixtureContent()),
        REDIS_URL: cluster.url,
        REDIS_PREFIX: prefix,
        RETRIEVAL_LIMITS: JSON.stringify({ hourly_rate_limit: HOURLY, daily_standard: 1e9, per_key_monthly: 1e9 }),
        ...agentNetworkEnv(network),
        // A short purchase lease: a buyer whose request died with the primary resumes within seconds.
        PAYMENT_TIMEOUT_MS: "1000",
        RECONCILE_INTERVAL_MS: "0",
      });
    }, 120_000);

    afterAll(async () => {
      await Promise.all(instances.map((i) => i.kill("SIGTERM")));
      await cluster?.stop();
    });

    describe(`a primary of ${kind} killed under load`, () => {
      it("loses no paid purchase or acknowledged key, charges no token twice, answers 503 (never 500) in the window, recovers without restart; quota over-admission measured", {
        timeout: 200_000,
      }, async () => {
        const issued = await postJson(`${instances[0]!.url}/api/keys`, { vertical: "travel" }, ADMIN);
        expect(issued.status).toBe(201);
        const member: string = issued.body.keys[0].key;
        const first = await fetch(`${instances[0]!.url}/api/demo?vertical=travel&node=trv-m3`, { headers: { "x-service-key": member } });
        await first.arrayBuffer();
        expect(first.status).toBe(200);
        const quotaKey = kind === "a Redis Cluster" ? await _quotaKey(cluster, prefix) : undefined;
        const victim = await primaryPortFor(cluster, quotaKey);

        const tally = { metered200: 1, metered429: 0, metered503: 0, keys201: 0, keys503: 0, purchases503: 0, other: [] as string[] };
        const acknowledged: string[] = [];
        const buyers: Buyer[] = [];
        let killed = false;
        let stopped = false;
        let bought = 0;
        const buy = async (w: number) => {
          const n = bought++;
          const token = await network.mint({ now: Date.now(), valueMicros: 100_000_000 });
          const buyer: Buyer = {
            jti: _jti(token),
            body: { vertical: "travel", payment_method: "agent_network", agent_id: `failover-${n}`, quantity: 1 + (n % 2) },
            headers: { "pay-network-pay-id": token, "idempotency-key": `failover-${n}` },
            startedAfterKill: killed,
            answers: [],
            keys: [],
            purchaseId: "",
            unconfirmed: false,
          };
          buyers.push(buyer);
          const deadline = Date.now() + 90_000;
          // The buyer retries after a 503 or while the dead request's lease holds the purchase,
          // alternating instances, with the same token and Idempotency-Key.
          for (let attempt = 0; ; attempt++) {
            const res = await _send(`${instances[(w + attempt) % instances.length]!.url}/api/checkout`, buyer.body, buyer.headers);
            buyer.answers.push(res.status);
            if (res.status === 201) {
              buyer.keys = res.body.keys.map((k: { key: string }) => k.key);
              buyer.purchaseId = res.body.receipt.purchase_id;
              return;
            }
            if (res.status === 409 && res.body?.code === "payment_unconfirmed") {
              // The network's answer was lost with a write: no key until the operator says (below).
              buyer.purchaseId = res.body.purchase_id;
              buyer.unconfirmed = true;
              return;
            }
            if (_isStoreUnavailable(res)) tally.purchases503++;
            else if (!(res.status === 409 && /in_progress$/.test(res.body?.code ?? "")))
              return void tally.other.push(
                `purchase ${n} (${buyer.answers.join(",")}; ${network.charges.filter((c) => c.jti === buyer.jti).length} charges): ${res.status} ${res.text.slice(0, 300)}`,
              );
            if (Date.now() > deadline) return void tally.other.push(`purchase ${n} unfinished: ${buyer.answers.join(",")}`);
            await new Promise((r) => setTimeout(r, 150));
          }
        };
        // Each worker keeps one kind of traffic, so slow purchases never starve the metered reads.
        const worker = async (w: number) => {
          for (let i = w; !stopped; i++) {
            const instance = instances[i % instances.length]!;
            try {
              if (w < PURCHASE_WORKERS) await buy(w);
              else if (w === PURCHASE_WORKERS) {
                const res = await postJson(`${instance.url}/api/keys`, { vertical: "travel", label: "failover" }, ADMIN);
                if (res.status === 201) {
                  tally.keys201++;
                  acknowledged.push(...res.body.keys.map((k: { key: string }) => k.key));
                } else if (res.status === 503 && res.body.code === "store_unavailable") tally.keys503++;
                else tally.other.push(`keys ${res.status} ${JSON.stringify(res.body).slice(0, 120)}`);
              } else {
                const res = await _send(`${instance.url}/api/demo?vertical=travel&node=trv-m3`, undefined, { "x-service-key": member });
                if (res.status === 200) tally.metered200++;
                else if (res.status === 429) tally.metered429++;
                else if (_isStoreUnavailable(res)) tally.metered503++;
                else tally.other.push(`metered ${res.status} ${res.text.slice(0, 120)}`);
              }
            } catch (error) {
              tally.other.push(String(error));
            }
          }
        };
        const workers = Array.from({ length: 9 }, (_, w) => worker(w));
        const started = Date.now();
        await waitFor(async () => tally.metered200 >= HOURLY / 3 || Date.now() - started > 20_000, 25_000, 20);
        const beforeKill = tally.metered200;
        const purchasesOnVictim = await _purchaseRecordsOn(cluster, victim, prefix);
        await cluster.kill(victim);
        killed = true;
        const killedAt = Date.now();
        // The cluster (node timeout 1.5 s) or the sentinels (down after 1 s, quorum 2) promote the replica.
        await waitFor(async () => (await primaryPortFor(cluster, quotaKey)) !== victim, 30_000, 200);
        const promotedAfterMs = Date.now() - killedAt;
        // Recovery without restart: traffic flows until the quota is used up, purchases go through.
        await waitFor(async () => tally.metered429 > 50, 60_000, 100);
        await waitFor(async () => buyers.filter((b) => b.startedAfterKill && b.keys.length > 0).length >= 4, 60_000, 100);
        stopped = true;
        await Promise.all(workers);

        const usage = (await getJson(`${instances[1]!.url}/api/keys`, { "x-service-key": member })).body.usage.hour as number;
        const overAdmitted = tally.metered200 - HOURLY;
        const paid = buyers.filter((b) => b.keys.length > 0);
        const retried = paid.filter((b) => b.answers.includes(503));
        process.stdout.write(
          `failover on ${kind}: promoted after ${promotedAfterMs} ms; purchases 201=${paid.length} of ${buyers.length} (${purchasesOnVictim} records on the killed primary; ${retried.length} finished after a 503, ${tally.purchases503} answers 503, ${buyers.filter((b) => b.unconfirmed).length} charge unconfirmed); keys 201=${tally.keys201} (all ${acknowledged.length} present), 503=${tally.keys503}; metered 200=${tally.metered200} (${beforeKill} before the kill) 429=${tally.metered429} 503=${tally.metered503}; hourly quota ${HOURLY}, counted ${usage}, over-admitted ${overAdmitted}\n`,
        );
        expect(tally.other).toEqual([]);
        // The kill hit the purchases: records of the burst lived on the killed primary, and buyers
        // were answered 503 in the window (and finished by retrying). On a cluster only requests
        // for the killed primary's slots meet the window, and on a loaded machine the few
        // purchases in flight may all miss it (one run in several, at a load average of 18), so
        // there that is counted, not required; with sentinels every request meets it. A buyer
        // answered 503 may finish paid by retrying or end with its charge unconfirmed (its
        // network answer lost with the write), which the operator settles below: either way the
        // window reached it, so it is the buyers answered 503 that must be there, not the paid.
        expect(purchasesOnVictim).toBeGreaterThan(0);
        if (kind === "a sentinel set") expect(buyers.filter((b) => b.answers.includes(503)).length).toBeGreaterThan(0);

        // No token charged twice; every purchase answered 201 charged its token once.
        const charges = new Map<string, number>();
        for (const c of network.charges) charges.set(c.jti, (charges.get(c.jti) ?? 0) + 1);
        expect(buyers.filter((b) => (charges.get(b.jti) ?? 0) > 1).map((b) => `${b.jti} charged ${charges.get(b.jti)}×`)).toEqual([]);
        expect(paid.filter((b) => charges.get(b.jti) !== 1).map((b) => b.jti)).toEqual([]);
        // A charge whose answer was lost waits for the operator, who checks the network: paid → the
        // retry gets the keys (no second charge), not paid → released with nothing charged.
        for (const buyer of buyers.filter((b) => b.unconfirmed)) {
          const charged = charges.get(buyer.jti) === 1;
          const ack = await postJson(
            `${instances[0]!.url}/api/admin/payments/acknowledge`,
            { id: buyer.purchaseId, note: "checked with the network", outcome: charged ? "paid" : "not_paid" },
            ADMIN,
          );
          expect(ack.status, `purchase ${buyer.purchaseId}`).toBe(200);
          const retry = await _send(`${instances[1]!.url}/api/checkout`, buyer.body, buyer.headers);
          expect(retry.status, `purchase ${buyer.purchaseId} after the operator`).toBe(charged ? 201 : 402);
          if (charged) buyer.keys = retry.body.keys.map((k: { key: string }) => k.key);
        }
        const settled = buyers.filter((b) => b.keys.length > 0);

        // Every purchase answered 201 is there after the promotion: the same request repeats the
        // same keys without a charge, on the other instance, and each key works.
        const chargesBefore = network.charges.length;
        for (const [i, buyer] of settled.entries()) {
          expect(buyer.keys).toHaveLength(buyer.body.quantity as number);
          const replay = await _send(`${instances[i % 2]!.url}/api/checkout`, buyer.body, buyer.headers);
          expect(replay.status, `purchase ${buyer.purchaseId} lost`).toBe(201);
          expect(replay.body.keys.map((k: { key: string }) => k.key)).toEqual(buyer.keys);
          for (const key of buyer.keys) {
            const read = await _send(`${instances[(i + 1) % 2]!.url}/api/demo?vertical=travel&node=trv-m7`, undefined, {
              "x-service-key": key,
            });
            expect(read.status, `key of purchase ${buyer.purchaseId} lost`).toBe(200);
          }
        }
        expect(network.charges.length).toBe(chargesBefore);
        // Every key acknowledged with 201 is there after the promotion, on both instances.
        for (const [i, key] of acknowledged.entries()) {
          const view = await getJson(`${instances[i % 2]!.url}/api/keys`, { "x-service-key": key });
          expect(view.status, `acknowledged key #${i} lost`).toBe(200);
        }
        // Nothing is left half done, nothing waits for the operator any more.
        const report = await _reconcileWhenFree(instances[0]!);
        expect(report.open).toEqual([]);
        expect(report.attention).toEqual([]);

        // Quota counters replicate asynchronously: a failover may forget the last increments the
        // primary took before it died (a few milliseconds of traffic), never more than was admitted
        // before the kill. The other way, a count the primary applied whose reply was lost in the
        // window is answered 503 and cannot be given back (nobody knows it was applied): the
        // quota under-admits by at most the metered 503s seen (docs/operations.md).
        expect(tally.metered200).toBeGreaterThanOrEqual(HOURLY - tally.metered503);
        expect(overAdmitted).toBeLessThanOrEqual(beforeKill);
        expect(acknowledged.length).toBeGreaterThan(0);
      });
    });
  });
}

// --- Internal helpers ---

interface Buyer {
  jti: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  startedAfterKill: boolean;
  /** Every status the buyer was answered, in order. */
  answers: number[];
  keys: string[];
  purchaseId: string;
  /** Answered 409 payment_unconfirmed: its charge waits for the operator. */
  unconfirmed: boolean;
}

interface Reply {
  status: number;
  contentType: string;
  text: string;
  body: any;
}

async function _send(url: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
  const res = await fetch(
    url,
    body === undefined
      ? { headers }
      : { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) },
  );
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  return { status: res.status, contentType, text, body: contentType.includes("json") && text ? JSON.parse(text) : null };
}

/** 503 `store_unavailable` as application/problem+json: the only answer the window may give. */
function _isStoreUnavailable(res: Reply): boolean {
  return res.status === 503 && res.contentType.includes("application/problem+json") && res.body?.code === "store_unavailable";
}

function _jti(token: string): string {
  return (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { jti: string }).jti;
}

async function _reconcileWhenFree(instance: ChildServer): Promise<any> {
  for (let i = 0; i < 60; i++) {
    const report = (await postJson(`${instance.url}/api/admin/payments/reconcile`, {}, ADMIN)).body;
    if (!report.open.some((e: { action: string }) => e.action.startsWith("in progress"))) return report;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error("a purchase stayed leased");
}

/** How many purchase records of the burst the node on `port` holds. */
async function _purchaseRecordsOn(cluster: RedisTopology, port: number, prefix: string): Promise<number> {
  const client = cluster.nodeClient(port);
  try {
    let [cursor, count] = ["0", 0];
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}r:purchase:*`, "COUNT", 1000);
      count += keys.length;
      cursor = next;
    } while (cursor !== "0");
    return count;
  } finally {
    client.disconnect();
  }
}

/** The Redis key of the member key's hourly quota counter (found on the cluster, not rebuilt here). */
async function _quotaKey(cluster: RedisTopology, prefix: string): Promise<string> {
  const client = new Cluster([{ host: "127.0.0.1", port: cluster.nodes[0]!.port }]);
  client.on("error", () => {});
  try {
    await new Promise((resolve) => client.once("ready", resolve));
    const keys = await scanCluster(client, `${prefix}c:q:*:h:*`);
    expect(keys).toHaveLength(1);
    return keys[0]!;
  } finally {
    client.disconnect();
  }
}
