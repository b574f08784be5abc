/**
 * An agent_network charge whose outcome is unknown is never assumed paid. The network's charge call
 * takes no idempotency key and has no lookup, so a charge that hangs or whose answer is lost leaves
 * the purchase `unconfirmed`: no key exists, the buyer's retry is 409 `payment_unconfirmed`,
 * reconciliation leaves it alone and lists it, and the operator settles it after checking with the
 * network: paid (admin API) → the buyer's retry gets one key set, one charge; not paid (the `vkr`
 * CLI on the same store) → released, the token's whole value spendable again. A refusal is recorded
 * before the release, so a store error in the release does not turn it into keys on the retry.
 * The real service on a real port, the network's stand-in speaking its wire protocol.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { PurchaseRecord } from "../../runtime/domain/payments/purchases/purchase-store.ts";
import { ADMIN_KEY, type TestService } from "../helpers/test-service.ts";
import { failWrite } from "./fail-store-write.ts";
import { type AgentNetworkStandIn, agentNetworkEnv, startAgentNetwork } from "./stand-ins/agent-network.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

const PRICE = 19_000_000;
const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };
const BIN = join(process.cwd(), "bin", "vkr.mjs");
let network: AgentNetworkStandIn;
let svc: TestService;
const dataDir = mkdtempSync(join(tmpdir(), "vkr-unconfirmed-"));
const restore: (() => void)[] = [];

beforeAll(async () => {
  network = await startAgentNetwork();
  svc = await startPaymentsService({
    ...agentNetworkEnv(network),
    DATA_DIR: dataDir,
    PAYMENT_TIMEOUT_MS: "800",
    RECONCILE_INTERVAL_MS: "0",
  });
}, 120_000);
afterAll(async () => {
  await svc?.close();
  await network?.close();
});
afterEach(() => {
  restore.splice(0).forEach((undo) => undo());
  network.mode = "ok";
});

const mint = () => network.mint({ now: svc.clock.now(), valueMicros: PRICE });
const jtiOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { jti: string }).jti;
const chargesOf = (token: string) => network.charges.filter((c) => c.jti === jtiOf(token)).length;
const buy = (agent: string, token: string, idempotencyKey: string) =>
  svc.request("/api/checkout", {
    method: "POST",
    headers: { "pay-network-pay-id": token, "idempotency-key": idempotencyKey },
    json: checkoutBody("agent_network", { agent_id: agent }),
  });
const record = (id: string) => svc.service.deps.backend.records.getItem<PurchaseRecord>(`purchase:${id}`);
/** No key of the purchase exists in any state: nothing to use, nothing to find. */
async function keysOf(id: string) {
  const found = await Promise.all((await record(id))!.key_hashes.map((hash) => svc.service.deps.keys.get(hash)));
  return found.filter((k) => k !== null);
}
const worksFor = async (key: string) =>
  (await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": key } })).status;
const overview = async () => (await svc.request("/api/admin/payments", { headers: ADMIN })).body;
const reconcile = async () => (await svc.request("/api/admin/payments/reconcile", { method: "POST", headers: ADMIN, json: {} })).body;
const acknowledge = (json: Record<string, unknown>) =>
  svc.request("/api/admin/payments/acknowledge", { method: "POST", headers: ADMIN, json });

function vkr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, DIST_DIR: svc.service.deps.config.distDir }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A purchase whose charge answer never arrives (`mode`): 502, its id, and it waits `unconfirmed`. */
async function unconfirmedPurchase(agent: string, token: string, key: string, mode: "hang" | "lost") {
  network.mode = mode;
  const first = await buy(agent, token, key);
  network.mode = "ok";
  expect(first.status).toBe(502);
  expect(first.body.code).toBe("payment_gateway_error");
  expect(first.body).not.toHaveProperty("keys");
  const id = first.body.purchase_id as string;
  expect((await record(id))!.state).toBe("unconfirmed");
  return id;
}

describe("agent_network: a charge whose outcome is unknown waits for the operator", () => {
  it("answer lost after the network charged: no key until the operator says paid; then the retry gets one key set, one charge", async () => {
    const token = await mint();
    const id = await unconfirmedPurchase("lost-answer", token, "lost-1", "lost");
    expect(chargesOf(token)).toBe(1);

    // The retry, and reconciliation, issue nothing: the buyer is told to wait, the operator to check.
    const retried = await buy("lost-answer", token, "lost-1");
    expect(retried.status).toBe(409);
    expect(retried.body.code).toBe("payment_unconfirmed");
    expect(retried.body.purchase_id).toBe(id);
    expect(retried.body).not.toHaveProperty("keys");
    const report = await reconcile();
    expect(report.resolved.map((e: { id: string }) => e.id)).not.toContain(id);
    expect(report.attention.find((e: { id: string }) => e.id === id)).toMatchObject({ state: "unconfirmed" });
    const listed = (await overview()).attention.find((e: { id: string }) => e.id === id);
    expect(listed).toMatchObject({ state: "unconfirmed", payer: { jti: jtiOf(token) } });
    expect(listed.action).toMatch(/--outcome paid\|not_paid/);
    expect(await keysOf(id)).toEqual([]);

    // The operator must say what the network said; acknowledging alone settles nothing.
    const noOutcome = await acknowledge({ id, note: "looked" });
    expect(noOutcome.status).toBe(409);
    expect(noOutcome.body.code).toBe("conflict");
    const paid = await acknowledge({ id, note: "charge seen in the network dashboard", outcome: "paid" });
    expect(paid.status).toBe(200);
    expect(paid.body.state).toBe("issued");
    expect((await overview()).attention.map((e: { id: string }) => e.id)).not.toContain(id);

    const done = await buy("lost-answer", token, "lost-1");
    expect(done.status).toBe(201);
    expect(done.body.keys).toHaveLength(1);
    expect(done.body.receipt).not.toHaveProperty("charge_unconfirmed");
    expect(await worksFor(done.body.keys[0].key)).toBe(200);
    const again = await buy("lost-answer", token, "lost-1");
    expect(again.status).toBe(201);
    expect(again.body.keys.map((k: { key: string }) => k.key)).toEqual(done.body.keys.map((k: { key: string }) => k.key));
    expect(await keysOf(id)).toHaveLength(1);
    expect(chargesOf(token)).toBe(1);
    // Settled once: a second finding is refused.
    expect((await acknowledge({ id, note: "again", outcome: "not_paid" })).status).toBe(409);
  });

  it("a charge that hangs (nothing charged): the operator says not paid with `vkr payments ack`; released, the token whole", async () => {
    // The CLI runs on the real clock: so does the service from here (the token's ledger expires with it).
    svc.clock.set(Date.now());
    const token = await mint();
    const id = await unconfirmedPurchase("hung-charge", token, "hang-1", "hang");
    expect(chargesOf(token)).toBe(0);
    expect((await buy("hung-charge", token, "hang-1")).body.code).toBe("payment_unconfirmed");
    expect(await keysOf(id)).toEqual([]);

    const listed = await vkr(["payments", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`needs an operator:[\\s\\S]*${id}\\s+agent_network\\s+unconfirmed`));
    const badOutcome = await vkr(["payments", "ack", id, "--note", "x", "--outcome", "maybe"]);
    expect(badOutcome.code).toBe(1);
    expect(badOutcome.stderr).toMatch(/--outcome is paid or not_paid/);
    const ack = await vkr(["payments", "ack", id, "--note", "no charge in the network dashboard", "--outcome", "not_paid", "--json"]);
    expect(ack.code).toBe(0);
    expect(JSON.parse(ack.stdout)).toMatchObject({ id, state: "released" });

    const retried = await buy("hung-charge", token, "hang-1");
    expect(retried.status).toBe(402);
    expect(retried.body).not.toHaveProperty("keys");
    expect(await keysOf(id)).toEqual([]);
    // The token's whole value buys a key now (the ledger's hold was given back).
    const bought = await buy("hung-charge", token, "hang-2");
    expect(bought.status, JSON.stringify(bought.body)).toBe(201);
    expect(chargesOf(token)).toBe(1);
  });

  it.each([
    ["the hold's give-back", (kind: string, key: string) => kind === "consume" && key.includes("payledger:"), 2],
    [
      "the released record",
      (kind: string, _key: string, value: unknown) => kind === "setItem" && (value as PurchaseRecord)?.state === "released",
      1,
    ],
  ] as const)(
    "a refused charge, then a store error writing %s: the retry releases it (no keys, no charge, the token whole)",
    async (_, only, nth) => {
      const token = await mint();
      const agent = `refused-${nth}`;
      network.mode = 402;
      failWrite(svc, restore, nth, only);
      const first = await buy(agent, token, "refused");
      expect(first.status).toBeGreaterThanOrEqual(500);
      restore.splice(0).forEach((undo) => undo());
      network.mode = "ok";

      const retried = await buy(agent, token, "refused");
      expect(retried.status).toBe(402);
      expect(retried.body.code).toBe("payment_failed");
      expect(retried.body).not.toHaveProperty("keys");
      expect(chargesOf(token)).toBe(0);
      const report = await reconcile();
      expect(report.open.filter((e: { account: string }) => e.account === agent)).toEqual([]);
      expect(report.attention.filter((e: { account: string }) => e.account === agent)).toEqual([]);
      const bought = await buy(agent, token, "refused-then-paid");
      expect(bought.status).toBe(201);
      expect(chargesOf(token)).toBe(1);
    },
  );
});
