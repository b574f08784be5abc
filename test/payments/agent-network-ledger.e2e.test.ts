/**
 * A prepaid token's ledger gives back what was not spent, and a store outage neither spends a
 * token twice nor locks its buyer out. In-process, with store writes failing on purpose (the way
 * x402-crash-recovery does): a refused charge leaves the token's whole value spendable (checkout
 * and per-use reads); a store error at every write of a purchase, then retries with the same
 * Idempotency-Key, ends with keys and exactly one charge, or no keys, no charge and the token
 * whole (where the network's answer was lost with a write, after the operator says what the network
 * did); a purchase cut off before its charge step is released by reconciliation, not issued; a
 * failed unlease does not answer the retries 409 for the lease's life. With the state in SQLite,
 * then on a Redis Cluster this file starts (the ledger and a purchase's hold share a slot).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RedisTopology, startRedisCluster } from "../helpers/redis-topology.ts";
import type { TestService } from "../helpers/test-service.ts";
import { ADMIN_KEY } from "../helpers/test-service.ts";
import { failWrite as failStoreWrite } from "./fail-store-write.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

const PRICE = 19_000_000;
let network: AgentNetworkStandIn;
let svc: TestService;
beforeAll(async () => {
  network = await startAgentNetwork();
});
afterAll(async () => {
  await network?.close();
});
const restore: (() => void)[] = [];
afterEach(() => {
  restore.splice(0).forEach((undo) => undo());
  network.mode = "ok";
});

const buy = (agent: string, token: string, idempotencyKey: string) =>
  svc.request("/api/checkout", {
    method: "POST",
    headers: { "pay-network-pay-id": token, "idempotency-key": idempotencyKey },
    json: checkoutBody("agent_network", { agent_id: agent }),
  });
const mint = (valueMicros = PRICE) => network.mint({ now: svc.clock.now(), valueMicros });
const jtiOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).jti as string;
const chargesOf = (token: string) => network.charges.filter((c) => c.jti === jtiOf(token)).length;
const reconcile = async () =>
  (await svc.request("/api/admin/payments/reconcile", { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}` }, json: {} }))
    .body;

const failWrite = (nth: number, only?: Parameters<typeof failStoreWrite>[3]) => failStoreWrite(svc, restore, nth, only);

/** Retries while the purchase is in progress; the final answer. */
async function untilSettled(send: () => Promise<{ status: number; body: any }>) {
  for (let i = 0; ; i++) {
    const res = await send();
    if (!(res.status === 409 && /in_progress$/.test(res.body.code)) || i > 50) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const store of ["the embedded store", "a Redis Cluster"] as const) {
  describe(`on ${store}`, () => {
    let cluster: RedisTopology | null = null;
    beforeAll(async () => {
      if (store === "a Redis Cluster") cluster = await startRedisCluster();
      svc = await startPaymentsService({
        ...agentNetworkEnv(network),
        PER_USE_CHARGE_BATCH_MS: "0",
        RECONCILE_INTERVAL_MS: "0",
        ...(cluster ? { REDIS_URL: cluster.url } : {}),
      });
    }, 120_000);
    afterAll(async () => {
      await svc?.close();
      await cluster?.stop();
    });

    describe("agent_network: the ledger gives back what was not spent", () => {
      it("a charge the network refuses leaves the token's full value spendable, for checkout and per-use reads", async () => {
        const token = await mint();
        network.mode = 402;
        const refused = await buy("ledger-refused", token, "refused-1");
        expect(refused.status).toBe(402);
        expect(refused.body.code).toBe("payment_failed");
        network.mode = "ok";
        const read = await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "pay-network-pay-id": token } });
        expect(read.status).toBe(200);
        expect(read.headers.get("pay-network-remaining")).toBe("18.998000");
        // A per-use read the network refuses gives its reservation back too.
        network.mode = 402;
        expect((await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "pay-network-pay-id": token } })).status).toBe(402);
        network.mode = "ok";
        const whole = await mint();
        network.mode = 402;
        await buy("ledger-refused-2", whole, "refused-2");
        network.mode = "ok";
        const paid = await buy("ledger-refused-2", whole, "refused-3");
        expect(paid.status).toBe(201);
        expect(chargesOf(whole)).toBe(1);
      });

      it("a store error between the ledger and the purchase record: the retry with the same Idempotency-Key does not reserve again", async () => {
        const token = await mint();
        failWrite(1, (kind, key, value) => kind === "setItem" && key.startsWith("purchase:") && (value as any)?.state === "charging");
        expect((await buy("ledger-retry", token, "retry-1")).status).toBeGreaterThanOrEqual(500);
        restore.splice(0).forEach((undo) => undo());
        const retried = await untilSettled(() => buy("ledger-retry", token, "retry-1"));
        expect(retried.status).toBe(201);
        expect(chargesOf(token)).toBe(1);
      });

      it("a store error at every write of a purchase, then retries: keys and one charge, or no keys, no charge and the token whole", async () => {
        const probe = await mint();
        const writes = failWrite(0);
        expect((await buy("ledger-probe", probe, "probe")).status).toBe(201);
        restore.splice(0).forEach((undo) => undo());
        expect(writes.length).toBeGreaterThan(8);
        const outcomes: string[] = [];
        let unconfirmed = 0;
        for (let nth = 1; nth <= writes.length; nth++) {
          const token = await mint();
          const agent = `ledger-fault-${nth}`;
          failWrite(nth);
          await buy(agent, token, `fault-${nth}`);
          restore.splice(0).forEach((undo) => undo());
          let final = await untilSettled(() => buy(agent, token, `fault-${nth}`));
          if (final.status !== 201) {
            await reconcile();
            final = await untilSettled(() => buy(agent, token, `fault-${nth}`));
          }
          if (final.body.code === "payment_unconfirmed") {
            // The network's answer was lost with the write: no key until the operator, having
            // checked the network, says whether it charged.
            const outcome = chargesOf(token) > 0 ? "paid" : "not_paid";
            const ack = await svc.request("/api/admin/payments/acknowledge", {
              method: "POST",
              headers: { authorization: `Bearer ${ADMIN_KEY}` },
              json: { id: final.body.purchase_id, note: "checked with the network", outcome },
            });
            expect(ack.status).toBe(200);
            unconfirmed += 1;
            final = await untilSettled(() => buy(agent, token, `fault-${nth}`));
          }
          if (final.status === 201) {
            expect(chargesOf(token), `write ${nth}: ${writes[nth - 1]}`).toBe(1);
            outcomes.push("keys");
          } else {
            expect(chargesOf(token), `write ${nth}: ${writes[nth - 1]} ended ${final.status} ${final.body.code}`).toBe(0);
            // Never a dead token: its whole value still buys a key.
            expect((await untilSettled(() => buy(`${agent}-again`, token, `fault-${nth}-again`))).status).toBe(201);
            outcomes.push("none");
          }
        }
        expect(outcomes.length).toBe(writes.length);
        // A write lost right after the charge leaves its outcome unknown: at least that one waited for the operator.
        expect(unconfirmed).toBeGreaterThan(0);
      }, 120_000);

      it("cut off before the charge step was recorded: reconciliation releases it (no keys, no charge) and the token stays whole", async () => {
        const token = await mint();
        failWrite(1, (kind, key) => kind === "insertOnce" && /^pstep:.*:charge$/.test(key));
        const cut = await buy("ledger-cut", token, "cut-1");
        expect(cut.status).toBeGreaterThanOrEqual(500);
        restore.splice(0).forEach((undo) => undo());
        const report = await reconcile();
        const entry = report.resolved.find((e: { account: string }) => e.account === "ledger-cut");
        expect(entry).toMatchObject({ state: "released" });
        expect(chargesOf(token)).toBe(0);
        const again = await buy("ledger-cut", token, "cut-1");
        expect(again.status).toBe(402);
        expect(again.body).not.toHaveProperty("keys");
        expect((await buy("ledger-cut", token, "cut-2")).status).toBe(201);
        expect(chargesOf(token)).toBe(1);
      });
    });

    describe("a store outage does not lock the buyer out", () => {
      it("the failed request's lease does not answer the retry 409 for the lease's life", async () => {
        // Worth more than one key: only the lease is under test here.
        const token = await mint(5 * PRICE);
        // After the purchase record exists, so the retry names the same purchase (and meets its lease).
        failWrite(1, (kind, key, value) => kind === "setItem" && key.startsWith("purchase:") && (value as any)?.state === "charging");
        failWrite(1, (kind, key) => kind === "removeOnce" && key.startsWith("plock:"));
        expect((await buy("lease-outage", token, "lease-1")).status).toBeGreaterThanOrEqual(500);
        restore.splice(0).forEach((undo) => undo());
        await new Promise((r) => setTimeout(r, 600));
        const retried = await buy("lease-outage", token, "lease-1");
        expect(retried.status).toBe(201);
        expect(chargesOf(token)).toBe(1);
      });
    });
  });
}
