/**
 * x402 keys only after a settle succeeded, against the facilitator built from `@x402/core`'s own
 * facilitator code (chain mocked): a `/settle` that hangs, fails with a 5xx or answers garbage
 * leaves the purchase `charging` with no key anywhere, through resends and reconciliation, until a
 * settle succeeds (then exactly one key set, one settlement); an authorization that expires
 * unsettled ends `released`. One EIP-3009 authorization is one purchase however it is wrapped
 * (v1 `X-PAYMENT`, v2 `PAYMENT-SIGNATURE`) and whoever sends it: its keys go only to the account
 * it paid for.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { ADMIN_KEY } from "../helpers/test-service.ts";
import { type FacilitatorStandIn, payWith, startFacilitator, x402Env } from "./stand-ins/x402-facilitator.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let facilitator: FacilitatorStandIn;
let svc: TestService;
beforeAll(async () => {
  facilitator = await startFacilitator();
  // No reconciliation timer: the tests run each pass themselves.
  svc = await startPaymentsService({ ...x402Env(facilitator), PAYMENT_TIMEOUT_MS: "1000", RECONCILE_INTERVAL_MS: "0" });
});
afterAll(async () => {
  await svc?.close();
  await facilitator?.close();
});

const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };
const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  svc.request("/api/checkout", { method: "POST", headers, json: body });
const decode = (header: string) => JSON.parse(Buffer.from(header, "base64").toString("utf8"));
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
const reconcile = async () => (await svc.request("/api/admin/payments/reconcile", { method: "POST", headers: ADMIN, json: {} })).body;
const keySet = (res: { body: any }) => JSON.stringify(res.body.keys.map((k: { key: string }) => k.key));
const works = async (key: string) =>
  (await svc.request("/api/demo?vertical=travel&node=trv-m7", { headers: { "x-service-key": key } })).status === 200;

/** A v1 payment for `body`'s price, and the same authorization and signature wrapped as v2. */
async function payBoth(body: Record<string, unknown>, authorization: Record<string, string> = {}) {
  const required = await buy(body);
  expect(required.status).toBe(402);
  const v1 = await payWith(facilitator.wallet(), 1, required.body.accepts[0], { overrides: { authorization } });
  const v2Requirement = decode(required.headers.get("payment-required")!).accepts[0];
  const v2 = encode({ x402Version: 2, accepted: v2Requirement, payload: decode(v1).payload });
  return { v1, v2 };
}

function withMode<T>(mode: FacilitatorStandIn["mode"], run: () => Promise<T>): Promise<T> {
  facilitator.mode = mode;
  return run().finally(() => (facilitator.mode = "ok"));
}

describe("x402: no key until a settle succeeds", () => {
  it.each(["settle_hang", "settle_5xx", "settle_garbage"] as const)(
    "/settle %s: 502, resends and reconciliation issue nothing while it fails; the first settle that succeeds issues exactly one key set",
    async (mode) => {
      const body = checkoutBody("http402", { agent_id: `settle-${mode}` });
      const { v1 } = await payBoth(body);
      const settledBefore = facilitator.settled.length;
      let purchaseId = "";
      await withMode(mode, async () => {
        const first = await buy(body, { "x-payment": v1 });
        expect(first.status).toBe(502);
        expect(first.body.code).toBe("payment_gateway_error");
        expect(first.body).not.toHaveProperty("keys");
        purchaseId = first.body.purchase_id;
        const report = await reconcile();
        expect(report.resolved.map((e: { id: string }) => e.id)).not.toContain(purchaseId);
        expect(report.open.find((e: { id: string }) => e.id === purchaseId)).toMatchObject({ state: "charging" });
        const resent = await buy(body, { "x-payment": v1 });
        expect(resent.status).toBe(502);
        expect(resent.body).not.toHaveProperty("keys");
      });
      expect(facilitator.settled.length).toBe(settledBefore);

      // Reconciliation asks settle again and issues; the resend then gets those keys, settled once.
      const report = await reconcile();
      expect(report.resolved.find((e: { id: string }) => e.id === purchaseId)).toMatchObject({ state: "issued" });
      expect(facilitator.settled.length).toBe(settledBefore + 1);
      const done = await buy(body, { "x-payment": v1 });
      expect(done.status).toBe(201);
      expect(done.body.receipt.purchase_id).toBe(purchaseId);
      expect(done.body.receipt.transaction).toBe(facilitator.settled.at(-1));
      expect(done.body.receipt).not.toHaveProperty("charge_unconfirmed");
      expect(await works(done.body.keys[0].key)).toBe(true);
      expect(keySet(await buy(body, { "x-payment": v1 }))).toBe(keySet(done));
      expect(facilitator.settled.length).toBe(settledBefore + 1);
    },
  );

  it("a resend after the facilitator recovered settles and issues once, without reconciliation", async () => {
    const body = checkoutBody("http402", { agent_id: "settle-resend" });
    const { v2 } = await payBoth(body);
    const settledBefore = facilitator.settled.length;
    await withMode("settle_5xx", async () => expect((await buy(body, { "payment-signature": v2 })).status).toBe(502));
    const results = await Promise.all(Array.from({ length: 6 }, () => buy(body, { "payment-signature": v2 })));
    expect(results.filter((r) => r.status !== 201).map((r) => r.body.code)).toEqual(
      results.filter((r) => r.status !== 201).map(() => "payment_in_progress"),
    );
    expect(new Set(results.filter((r) => r.status === 201).map(keySet)).size).toBe(1);
    expect(facilitator.settled.length).toBe(settledBefore + 1);
  });

  it("an authorization that expires while /settle hangs ends released, with no keys and nothing settled", async () => {
    const body = checkoutBody("http402", { agent_id: "settle-expired" });
    // The exact scheme accepts an authorization valid for at least 6 more seconds.
    const validBefore = Math.floor(Date.now() / 1000) + 8;
    const { v1 } = await payBoth(body, { validBefore: String(validBefore) });
    const settledBefore = facilitator.settled.length;
    const first = await withMode("settle_hang", () => buy(body, { "x-payment": v1 }));
    expect(first.status).toBe(502);
    // The exact scheme reads the wall clock (Date): set it a second past validBefore instead of
    // waiting ~8 s for it. Only Date is mocked; timers stay real, so timeouts behave as before.
    vi.setSystemTime((validBefore + 1) * 1000);
    try {
      const report = await reconcile();
      expect(report.resolved.find((e: { id: string }) => e.id === first.body.purchase_id)).toMatchObject({ state: "released" });
      const resent = await buy(body, { "x-payment": v1 });
      expect(resent.status).toBe(402);
      expect(resent.body).not.toHaveProperty("keys");
    } finally {
      vi.useRealTimers();
    }
    expect(facilitator.settled.length).toBe(settledBefore);
  });
});

describe("x402: one authorization, one purchase", () => {
  it("sent as v2, interrupted in settle, then re-wrapped as v1: the same purchase, one key set, one settlement", async () => {
    const body = checkoutBody("http402", { agent_id: "rewrap" });
    const { v1, v2 } = await payBoth(body);
    const settledBefore = facilitator.settled.length;
    expect((await withMode("settle_garbage", () => buy(body, { "payment-signature": v2 }))).status).toBe(502);
    const asV1 = await buy(body, { "x-payment": v1 });
    const asV2 = await buy(body, { "payment-signature": v2 });
    expect([asV1.status, asV2.status]).toEqual([201, 201]);
    expect(keySet(asV2)).toBe(keySet(asV1));
    expect(facilitator.settled.length).toBe(settledBefore + 1);
  });

  it.each([
    ["one agent id", ["burst-one", "burst-one"]],
    ["two agent ids", ["burst-a", "burst-b"]],
  ] as const)("a burst of 40 with one authorization as v1 and v2, to %s: exactly one key set, one settlement", async (_name, agents) => {
    const { v1, v2 } = await payBoth(checkoutBody("http402", { agent_id: agents[0] }));
    const settledBefore = facilitator.settled.length;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        buy(checkoutBody("http402", { agent_id: agents[i % 2] }), i % 4 < 2 ? { "x-payment": v1 } : { "payment-signature": v2 }),
      ),
    );
    const paid = results.filter((r) => r.status === 201);
    expect(paid.length).toBeGreaterThan(0);
    expect(new Set(paid.map(keySet)).size).toBe(1);
    expect(
      results
        .filter((r) => r.status !== 201)
        .map((r) => r.body.code)
        .filter((code) => code !== "payment_in_progress" && code !== "payment_owned_by_another_account"),
    ).toEqual([]);
    expect(facilitator.settled.length).toBe(settledBefore + 1);
    // Whoever it went to, only that account gets the keys again.
    const owner = paid[0]!.body.receipt.account as string;
    for (const agent of new Set(agents)) {
      const again = await buy(checkoutBody("http402", { agent_id: agent }), { "x-payment": v1 });
      if (agent === owner) expect(keySet(again)).toBe(keySet(paid[0]!));
      else expect(again.status).toBe(409);
    }
  });
});

describe("x402: a payment is not a bearer credential for the keys it bought", () => {
  it("resent with another agent_id → 409 payment_owned_by_another_account; the paying account (its agent_id or its key) gets the keys", async () => {
    const body = checkoutBody("http402", { agent_id: "bearer-owner" });
    const { v1, v2 } = await payBoth(body);
    const paid = await buy(body, { "x-payment": v1 });
    expect(paid.status).toBe(201);
    for (const [headers, json] of [
      [{ "x-payment": v1 }, checkoutBody("http402", { agent_id: "bearer-thief" })],
      [{ "payment-signature": v2 }, checkoutBody("http402", { agent_id: "bearer-thief" })],
      [{ "x-payment": v1 }, checkoutBody("http402")],
    ] as const) {
      const stolen = await buy(json, headers);
      expect(stolen.status).toBe(409);
      expect(stolen.headers.get("content-type")).toBe("application/problem+json");
      expect(stolen.body.code).toBe("payment_owned_by_another_account");
      expect(JSON.stringify(stolen.body)).not.toContain(paid.body.keys[0].key);
    }
    expect(keySet(await buy(body, { "payment-signature": v2 }))).toBe(keySet(paid));
    const byKey = await buy(checkoutBody("http402"), { "x-payment": v1, "x-service-key": paid.body.keys[0].key });
    expect(byKey.status).toBe(201);
    expect(keySet(byKey)).toBe(keySet(paid));
  });
});
