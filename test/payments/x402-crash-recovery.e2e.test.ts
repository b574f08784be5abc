/**
 * x402 checkout after a crash mid-way (issue 9): the request dies at a chosen store write (the
 * injected failure stands in for SIGKILL: nothing after that point runs), then the buyer retries
 * the same payment. A crash after settle and before issuing is finished by a retry once the claim
 * lease has run out, with keys, exactly once and without paying twice; a crash that loses settle's
 * outcome answers a clear `payment_unconfirmed` (and a log line for reconciliation), never an
 * eternal 409. Another signature over the same nonce gets nothing of someone else's purchase.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { payWith, startFacilitator, x402Env, type FacilitatorStandIn } from "./stand-ins/x402-facilitator.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

/** Longer than the claim lease (2 minutes at the default facilitator timeout). */
const PAST_LEASE_MS = 121_000;

let facilitator: FacilitatorStandIn;
let svc: TestService;
const restore: (() => void)[] = [];
beforeAll(async () => {
  facilitator = await startFacilitator();
  svc = await startPaymentsService(x402Env(facilitator));
});
afterEach(() => restore.splice(0).forEach((undo) => undo()));
afterAll(async () => {
  await svc?.close();
  await facilitator?.close();
});

const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}) => svc.request("/api/checkout", { method: "POST", headers, json: body });
const keysHeld = async (agent: string) => (await buy(checkoutBody("http402", { agent_id: agent }))).body.quote.keys_held;

async function payFor(body: Record<string, unknown>) {
  const required = await buy(body);
  expect(required.status).toBe(402);
  return payWith(facilitator.wallet(), 1, required.body.accepts[0], { nowSeconds: Math.floor(svc.clock.now() / 1000) });
}

/** The next write whose store key starts with `prefix` kills the request before it happens. */
function crashAt(method: "insertOnce" | "setItem", prefix: string) {
  const backend = svc.service.deps.backend;
  const target = (method === "insertOnce" ? backend : backend.records) as unknown as Record<string, (key: string, ...rest: unknown[]) => Promise<unknown>>;
  const original = target[method]!;
  let fired = false;
  target[method] = async (key, ...rest) => {
    if (!fired && key.startsWith(prefix)) {
      fired = true;
      throw new Error("simulated crash");
    }
    return original.call(target, key, ...rest);
  };
  restore.push(() => (target[method] = original));
  return () => fired;
}

describe("x402 checkout crash recovery", () => {
  it("a crash after settle, before issuing: 409 while the claim holds, then the retry issues the keys exactly once", async () => {
    const body = checkoutBody("http402", { agent_id: "crash-after-settle", quantity: 2 });
    const header = await payFor(body);
    const fired = crashAt("insertOnce", "x402-issue:");
    const crashed = await buy(body, { "x-payment": header });
    expect(fired()).toBe(true);
    expect(crashed.status).toBe(500);
    expect(facilitator.settled).toHaveLength(1);
    expect(await keysHeld("crash-after-settle")).toBe(0);

    // The claim's holder might still be alive and issuing: a retry now waits.
    const early = await buy(body, { "x-payment": header });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("payment_in_progress");

    svc.clock.advance(PAST_LEASE_MS);
    const calls = facilitator.calls.length;
    const results = await Promise.all(Array.from({ length: 8 }, () => buy(body, { "x-payment": header })));
    expect(results.map((r) => (r.status === 201 ? 201 : `${r.status} ${r.body.code}`)).filter((s) => s !== 201 && s !== "409 payment_in_progress")).toEqual([]);
    const done = results.find((r) => r.status === 201)!;
    expect(done.body.keys).toHaveLength(2);
    expect(done.body.receipt.transaction).toBe(facilitator.settled[0]);
    expect(done.body.receipt.quote.keys_held).toBe(0);
    expect(done.headers.get("x-payment-response")).toBeTruthy();
    const keySets = new Set(results.filter((r) => r.status === 201).map((r) => JSON.stringify(r.body.keys.map((k: { key: string }) => k.key))));
    expect(keySets.size).toBe(1);
    expect(svc.logs.some((line) => line.includes("finishing a settled payment"))).toBe(true);

    // Exactly once: later replays repeat it; nothing was verified, settled or issued again.
    const replay = await buy(body, { "x-payment": header });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(done.body);
    expect(facilitator.calls.length).toBe(calls);
    expect(facilitator.settled).toHaveLength(1);
    expect(await keysHeld("crash-after-settle")).toBe(2);
    const works = await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": done.body.keys[0].key } });
    expect(works.status).toBe(200);
  });

  it("a crash that loses settle's outcome: after the lease, a refused re-verify is payment_unconfirmed and logged, not an eternal 409", async () => {
    const body = checkoutBody("http402", { agent_id: "crash-in-settle" });
    const header = await payFor(body);
    const settledBefore = facilitator.settled.length;
    crashAt("setItem", "x402-settled:");
    expect((await buy(body, { "x-payment": header })).status).toBe(500);
    expect(facilitator.settled.length).toBe(settledBefore + 1);

    svc.clock.advance(PAST_LEASE_MS);
    const res = await buy(body, { "x-payment": header });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("payment_unconfirmed");
    expect(svc.logs.some((line) => line.includes("reconcile by hand") && line.includes("nonce_used"))).toBe(true);

    // Remembered: the next retry gets the same answer without asking the facilitator again.
    const calls = facilitator.calls.length;
    const again = await buy(body, { "x-payment": header });
    expect(again.body.code).toBe("payment_unconfirmed");
    expect(facilitator.calls.length).toBe(calls);
    expect(await keysHeld("crash-in-settle")).toBe(0);
  });

  it("a crash before settle was called: after the lease the payment simply goes through", async () => {
    const body = checkoutBody("http402", { agent_id: "crash-before-settle" });
    const header = await payFor(body);
    crashAt("setItem", "x402-settling:");
    expect((await buy(body, { "x-payment": header })).status).toBe(500);
    svc.clock.advance(PAST_LEASE_MS);
    const res = await buy(body, { "x-payment": header });
    expect(res.status).toBe(201);
    expect(res.body.keys).toHaveLength(1);
    expect(await keysHeld("crash-before-settle")).toBe(1);
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
