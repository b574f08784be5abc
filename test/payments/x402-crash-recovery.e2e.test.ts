/**
 * x402 checkout after a failure mid-way, in-process (the real kill -9 cycles are in
 * test/payments/crash.e2e.test.ts): the request dies at a chosen store write, so nothing after that
 * point runs, then the buyer sends the same payment again. A failure after settle finishes with the
 * keys, exactly once, without settling again; one that loses settle's outcome asks settle again
 * (an authorization settles once, so "nonce used" means it was paid) and issues the keys, flagged
 * for the operator; one before settle simply goes through.
 * Another signature over the same nonce gets nothing of someone else's purchase.
 * All of it with the state in SQLite, then on a Redis Cluster (three primaries, three replicas)
 * this file starts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RedisTopology, startRedisCluster } from "../helpers/redis-topology.ts";
import type { TestService } from "../helpers/test-service.ts";
import { ADMIN_KEY } from "../helpers/test-service.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, x402Env } from "./stand-ins/x402-facilitator.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let facilitator: FacilitatorStandIn;
let svc: TestService;
let cluster: RedisTopology | null = null;
const restore: (() => void)[] = [];
afterEach(() => restore.splice(0).forEach((undo) => undo()));
/** A write that fails: a plain 500 on SQLite; on Redis every failure of the store is the catalogue's 503. */
const crashAnswer = () => (cluster ? 503 : 500);

const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  svc.request("/api/checkout", { method: "POST", headers, json: body });
const keysHeld = async (key: string) => (await buy(checkoutBody("http402"), { "x-service-key": key })).body.quote.keys_held;
const attention = async () =>
  (await svc.request("/api/admin/payments", { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).body.attention as Array<{
    id: string;
    action: string;
  }>;

async function payFor(body: Record<string, unknown>) {
  const required = await buy(body);
  expect(required.status).toBe(402);
  return payWith(facilitator.wallet(), 1, required.body.accepts[0]);
}

/** The next write matching `when` fails before it happens, as if the process died there. */
function crashAt(method: "insertOnce" | "setItem", when: (key: string, value: unknown) => boolean) {
  const backend = svc.service.deps.backend;
  const target = (method === "insertOnce" ? backend : backend.records) as unknown as Record<
    string,
    (key: string, ...rest: unknown[]) => Promise<unknown>
  >;
  const original = target[method]!;
  let fired = false;
  target[method] = async (key, ...rest) => {
    if (!fired && when(key, rest[0])) {
      fired = true;
      throw new Error("simulated crash");
    }
    return original.call(target, key, ...rest);
  };
  restore.push(() => (target[method] = original));
  return () => fired;
}

const purchaseWrite = (state: string) => (key: string, value: unknown) =>
  key.startsWith("purchase:") && (value as { state?: string } | undefined)?.state === state;

for (const store of ["the embedded store", "a Redis Cluster"] as const) {
  describe(`on ${store}`, () => {
    beforeAll(async () => {
      facilitator = await startFacilitator();
      if (store === "a Redis Cluster") cluster = await startRedisCluster();
      svc = await startPaymentsService({ ...x402Env(facilitator), ...(cluster ? { REDIS_URL: cluster.url } : {}) });
    }, 120_000);
    afterAll(async () => {
      await svc?.close();
      await facilitator?.close();
      await cluster?.stop();
      cluster = null;
    });

    describe("x402 checkout crash recovery", () => {
      it("a failure after settle, while writing the keys: the retry issues them exactly once and never settles again", async () => {
        const body = checkoutBody("http402", { agent_id: "crash-after-settle", quantity: 2 });
        const header = await payFor(body);
        const fired = crashAt("setItem", (key) => key.startsWith("keys:"));
        const crashed = await buy(body, { "x-payment": header });
        expect(fired()).toBe(true);
        expect(crashed.status).toBe(crashAnswer());
        expect(facilitator.settled).toHaveLength(1);

        const calls = facilitator.calls.length;
        const results = await Promise.all(Array.from({ length: 8 }, () => buy(body, { "x-payment": header })));
        expect(
          results
            .map((r) => (r.status === 201 ? 201 : `${r.status} ${r.body.code}`))
            .filter((s) => s !== 201 && s !== "409 payment_in_progress"),
        ).toEqual([]);
        const done = results.find((r) => r.status === 201)!;
        expect(done.body.keys).toHaveLength(2);
        expect(done.body.receipt.transaction).toBe(facilitator.settled[0]);
        expect(done.body.receipt.quote.keys_held).toBe(0);
        expect(done.body.receipt).not.toHaveProperty("charge_unconfirmed");
        expect(done.headers.get("x-payment-response")).toBeTruthy();
        const keySets = new Set(
          results.filter((r) => r.status === 201).map((r) => JSON.stringify(r.body.keys.map((k: { key: string }) => k.key))),
        );
        expect(keySets.size).toBe(1);

        // Exactly once: later replays repeat it; nothing was verified, settled or issued again.
        const replay = await buy(body, { "x-payment": header });
        expect(replay.status).toBe(201);
        expect(replay.body.keys).toEqual(done.body.keys.map((k: object) => expect.objectContaining({ key: (k as { key: string }).key })));
        expect(facilitator.calls.length).toBe(calls);
        expect(facilitator.settled).toHaveLength(1);
        expect(await keysHeld(done.body.keys[0].key)).toBe(2);
        const works = await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": done.body.keys[0].key } });
        expect(works.status).toBe(200);
      });

      it("a failure that loses settle's outcome: the retry asks settle again, learns the nonce was used (so it was paid), issues the keys once, flagged for the operator", async () => {
        const body = checkoutBody("http402", { agent_id: "crash-in-settle" });
        const header = await payFor(body);
        const settledBefore = facilitator.settled.length;
        crashAt("setItem", purchaseWrite("charged"));
        expect((await buy(body, { "x-payment": header })).status).toBe(crashAnswer());
        expect(facilitator.settled.length).toBe(settledBefore + 1);

        const calls = facilitator.calls.length;
        const res = await buy(body, { "x-payment": header });
        expect(res.status).toBe(201);
        expect(res.body.receipt.charge_unconfirmed).toBe(true);
        // One more settle call, refused as "nonce used": nothing was settled twice.
        expect(facilitator.calls.slice(calls).map((c) => c.path)).toEqual(["/settle"]);
        expect(facilitator.settled.length).toBe(settledBefore + 1);
        expect(svc.logs.some((line) => line.includes("charge unconfirmed") && line.includes(res.body.receipt.purchase_id))).toBe(true);
        expect((await attention()).map((a) => a.id)).toContain(res.body.receipt.purchase_id);
        expect(await keysHeld(res.body.keys[0].key)).toBe(1);
      });

      it("a failure before settle was called: the retry settles once and issues", async () => {
        const body = checkoutBody("http402", { agent_id: "crash-before-settle" });
        const header = await payFor(body);
        const settledBefore = facilitator.settled.length;
        crashAt("setItem", purchaseWrite("charging"));
        expect((await buy(body, { "x-payment": header })).status).toBe(crashAnswer());
        expect(facilitator.settled.length).toBe(settledBefore);
        const res = await buy(body, { "x-payment": header });
        expect(res.status).toBe(201);
        expect(res.body.receipt).not.toHaveProperty("charge_unconfirmed");
        expect(facilitator.settled.length).toBe(settledBefore + 1);
        expect(await keysHeld(res.body.keys[0].key)).toBe(1);
      });

      it("another signature over a used (network, payer, nonce) gets a 402, not the buyer's keys", async () => {
        const body = checkoutBody("http402", { agent_id: "nonce-owner" });
        const header = await payFor(body);
        expect((await buy(body, { "x-payment": header })).status).toBe(201);
        const forged = JSON.parse(Buffer.from(header, "base64").toString("utf8"));
        forged.payload.signature = `0x${"ab".repeat(32)}`;
        const res = await buy(body, { "x-payment": Buffer.from(JSON.stringify(forged)).toString("base64") });
        expect(res.status).toBe(402);
        expect(res.body).not.toHaveProperty("keys");
        expect(res.body.error).toBe("invalid_exact_evm_payload_authorization_nonce_used");
      });
    });
  });
}
