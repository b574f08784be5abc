/**
 * Purchases and issuances that fail part-way, in-process (the kill -9 cycles are in crash.e2e.test.ts):
 * the request dies at a chosen store write, so nothing after it runs. The issue-14 cases:
 * - an agent-network purchase that failed after the network charged and before its keys existed:
 *   the retry with the same Idempotency-Key issues them, once, and never charges again;
 * - a trial that failed before its key existed never locks its agent out;
 * - an admin issuance that failed between its keys leaves no slot taken once reconciled.
 * All of it with the state in SQLite, then on a Redis Cluster (three primaries, three replicas)
 * this file starts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RedisTopology, startRedisCluster } from "../helpers/redis-topology.ts";
import { ADMIN_KEY, type TestService } from "../helpers/test-service.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let network: AgentNetworkStandIn;
let svc: TestService;
let cluster: RedisTopology | null = null;
const restore: (() => void)[] = [];
afterEach(() => restore.splice(0).forEach((undo) => undo()));

const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };
const jtiOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as { jti: string }).jti;

/**
 * The `nth` write whose key starts with `prefix` fails before it happens, as if the process died
 * there (a `consume` matches on its first window's key).
 */
function failAt(method: "insertOnce" | "setItem" | "consume", prefix: string, nth = 1): number {
  const backend = svc.service.deps.backend;
  const target = (method === "setItem" ? backend.records : backend) as unknown as Record<
    string,
    (first: unknown, ...rest: unknown[]) => Promise<unknown>
  >;
  const original = target[method]!;
  let seen = 0;
  target[method] = async (first, ...rest) => {
    const key = method === "consume" ? (first as Array<{ key: string }>)[0]!.key : (first as string);
    if (key.startsWith(prefix) && ++seen === nth) throw new Error("simulated crash");
    return original.call(target, first, ...rest);
  };
  restore.push(() => (target[method] = original));
  // What the request answers: a plain 500; on Redis a failed record write is the catalogue's 503.
  return cluster && method === "setItem" ? 503 : 500;
}

for (const store of ["the embedded store", "a Redis Cluster"] as const) {
  describe(`on ${store}`, () => {
    beforeAll(async () => {
      network = await startAgentNetwork();
      if (store === "a Redis Cluster") cluster = await startRedisCluster();
      svc = await startPaymentsService({ ...agentNetworkEnv(network), ...(cluster ? { REDIS_URL: cluster.url } : {}) });
    }, 120_000);
    afterAll(async () => {
      await svc?.close();
      await network?.close();
      await cluster?.stop();
      cluster = null;
    });

    describe("interrupted issuance", () => {
      it("agent_network: charged, then the keys' write failed; the retry with the same Idempotency-Key issues them once, without a second charge", async () => {
        const token = await network.mint({ now: svc.clock.now(), valueMicros: 100_000_000 });
        const headers = { "pay-network-pay-id": token, "idempotency-key": "interrupted-1" };
        const body = checkoutBody("agent_network", { agent_id: "interrupted-buyer", quantity: 2 });
        const answer = failAt("setItem", "keys:");
        const failed = await svc.request("/api/checkout", { method: "POST", headers, json: body });
        expect(failed.status).toBe(answer);
        expect(network.charges.filter((c) => c.jti === jtiOf(token))).toHaveLength(1);
        restore.splice(0).forEach((undo) => undo());

        const retried = await svc.request("/api/checkout", { method: "POST", headers, json: body });
        expect(retried.status).toBe(201);
        expect(retried.body.keys).toHaveLength(2);
        expect(retried.body.receipt).not.toHaveProperty("charge_unconfirmed");
        expect(network.charges.filter((c) => c.jti === jtiOf(token))).toHaveLength(1);
        expect(
          (await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": retried.body.keys[1].key } })).status,
        ).toBe(200);
      });

      it("agent_network: the reservation failed after its record was first written; the retry finishes the reservation and charges its full price once", async () => {
        const token = await network.mint({ now: svc.clock.now(), valueMicros: 100_000_000 });
        const headers = { "pay-network-pay-id": token, "idempotency-key": "interrupted-reserving" };
        const body = checkoutBody("agent_network", { agent_id: "interrupted-reserving", quantity: 2 });
        // The record's second write (slots taken, price and keys known) fails: the first says only "reserving".
        const answer = failAt("setItem", "purchase:", 2);
        expect((await svc.request("/api/checkout", { method: "POST", headers, json: body })).status).toBe(answer);
        restore.splice(0).forEach((undo) => undo());
        expect(network.charges.filter((c) => c.jti === jtiOf(token))).toHaveLength(0);

        const retried = await svc.request("/api/checkout", { method: "POST", headers, json: body });
        expect(retried.status).toBe(201);
        expect(retried.body.keys).toHaveLength(2);
        expect(network.charges.filter((c) => c.jti === jtiOf(token)).map((c) => c.micros)).toEqual([19_000_000 + 17_000_000]);
      });

      it("agent_network: the token's ledger could not be reached; the purchase stays open and the retry completes it with one charge", async () => {
        const token = await network.mint({ now: svc.clock.now(), valueMicros: 100_000_000 });
        const headers = { "pay-network-pay-id": token, "idempotency-key": "interrupted-ledger" };
        const body = checkoutBody("agent_network", { agent_id: "interrupted-ledger" });
        const answer = failAt("consume", "payledger:");
        // The store stays down for what follows in the same request (the purchase record's next write).
        failAt("setItem", "purchase:", 3);
        expect((await svc.request("/api/checkout", { method: "POST", headers, json: body })).status).toBe(answer);
        restore.splice(0).forEach((undo) => undo());

        const retried = await svc.request("/api/checkout", { method: "POST", headers, json: body });
        expect(retried.status).toBe(201);
        expect(retried.body.keys).toHaveLength(1);
        expect(network.charges.filter((c) => c.jti === jtiOf(token))).toHaveLength(1);
      });

      it("trial: the agent's slot is claimed only once its key exists, so a failed key write leaves the agent free to ask again", async () => {
        const answer = failAt("setItem", "keys:");
        expect((await svc.request("/api/trial", { method: "POST", json: { agent_id: "interrupted-trial" } })).status).toBe(answer);
        restore.splice(0).forEach((undo) => undo());
        const again = await svc.request("/api/trial", { method: "POST", json: { agent_id: "interrupted-trial" } });
        expect(again.status).toBe(200);
        expect(again.body.key).toMatch(/^svc_trial_/);
      });

      it("admin: a failure between two keys; reconciliation revokes the one written and gives both slots back", async () => {
        const answer = failAt("setItem", "keys:", 2);
        expect(
          (
            await svc.request("/api/keys", {
              method: "POST",
              headers: ADMIN,
              json: { vertical: "travel", agent_id: "interrupted-admin", quantity: 2 },
            })
          ).status,
        ).toBe(answer);
        restore.splice(0).forEach((undo) => undo());
        const report = await svc.request("/api/admin/payments/reconcile", { method: "POST", headers: ADMIN });
        expect(report.body.resolved).toEqual([expect.objectContaining({ method: "admin", state: "released" })]);
        const full = await svc.request("/api/keys", {
          method: "POST",
          headers: ADMIN,
          json: { vertical: "travel", agent_id: "interrupted-admin", quantity: 5 },
        });
        expect(full.status).toBe(201);
        const listed = await svc.request("/api/admin/keys", { headers: ADMIN });
        const ofAccount = listed.body.keys.filter((k: { agent_id: string | null }) => k.agent_id === "interrupted-admin");
        expect(ofAccount.filter((k: { status: string }) => k.status === "active")).toHaveLength(5);
      });
    });
  });
}
