/**
 * POST /api/checkout with `http402` (x402 v1 and v2) against a stand-in facilitator: server-side
 * requirements, our requirements sent to the facilitator, settle before issue, one use per payment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import {
  ASSET,
  type FacilitatorStandIn,
  NETWORK_V1,
  NETWORK_V2,
  PAY_TO,
  payWith,
  startFacilitator,
  type Wallet,
  x402Env,
} from "./stand-ins/x402-facilitator.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

let facilitator: FacilitatorStandIn;
let svc: TestService;
let wallet: Wallet;
beforeAll(async () => {
  facilitator = await startFacilitator();
  svc = await startPaymentsService({ ...x402Env(facilitator), PAYMENT_TIMEOUT_MS: "2000" });
  wallet = facilitator.wallet();
});
afterAll(async () => {
  await svc?.close();
  await facilitator?.close();
});

const buy = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  svc.request("/api/checkout", { method: "POST", headers, json: body });
const decode = (header: string | null) => JSON.parse(Buffer.from(header!, "base64").toString("utf8"));

/** Asks for the requirements, then pays them (v1 from the body, v2 from PAYMENT-REQUIRED). */
async function payFor(body: Record<string, unknown>, version: 1 | 2, overrides?: NonNullable<Parameters<typeof payWith>[3]>["overrides"]) {
  const required = await buy(body);
  expect(required.status).toBe(402);
  const requirement = version === 1 ? required.body.accepts[0] : decode(required.headers.get("payment-required")).accepts[0];
  return payWith(wallet, version, requirement, { overrides });
}

describe("POST /api/checkout http402", () => {
  it.each([
    [1, "19000000"],
    [2, "36000000"],
    [3, "51000000"],
    [4, "64000000"],
    [5, "75000000"],
  ])("without payment, quantity %i → 402 with v1 body and v2 header for %s atomic units", async (quantity, amount) => {
    const res = await buy(checkoutBody("http402", { quantity, agent_id: `quote-${quantity}` }));
    expect(res.status).toBe(402);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body).toMatchObject({ x402Version: 1, status: 402, code: "checkout_payment_required" });
    expect(res.body.accepts[0]).toMatchObject({
      scheme: "exact",
      network: NETWORK_V1,
      maxAmountRequired: amount,
      asset: ASSET,
      payTo: PAY_TO,
      mimeType: "application/json",
    });
    const v2 = decode(res.headers.get("payment-required"));
    expect(v2.x402Version).toBe(2);
    // Each version names its own header: v1's body X-PAYMENT, v2's PaymentRequired PAYMENT-SIGNATURE.
    expect(res.body.error).toBe("X-PAYMENT header is required");
    expect(v2.error).toBe("PAYMENT-SIGNATURE header is required");
    expect(v2.accepts[0]).toMatchObject({ scheme: "exact", network: NETWORK_V2, amount, asset: ASSET, payTo: PAY_TO });
    expect(v2.resource.url).toMatch(/\/api\/checkout$/);
    // The hint points only at members this body has.
    const named = [...String(res.body.hint).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !(name in res.body))).toEqual([]);
  });

  it("a valid X-PAYMENT (v1) → 201 with keys and X-PAYMENT-RESPONSE success; the facilitator got OUR requirements; settle came before issue", async () => {
    const body = checkoutBody("http402", { agent_id: "x402-v1" });
    const header = await payFor(body, 1);
    facilitator.calls.length = 0;
    const res = await buy(body, { "x-payment": header });
    expect(res.status).toBe(201);
    expect(res.body.keys).toHaveLength(1);
    const receipt = decode(res.headers.get("x-payment-response"));
    expect(receipt).toMatchObject({ success: true, network: NETWORK_V1 });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.body.receipt.transaction).toBe(receipt.transaction);
    expect(facilitator.calls.map((c) => c.path)).toEqual(["/verify", "/settle"]);
    for (const call of facilitator.calls)
      expect(call.body.paymentRequirements).toMatchObject({
        maxAmountRequired: "19000000",
        payTo: PAY_TO,
        asset: ASSET,
        network: NETWORK_V1,
      });
  });

  it("a valid PAYMENT-SIGNATURE (v2) → 201 with PAYMENT-RESPONSE", async () => {
    const body = checkoutBody("http402", { agent_id: "x402-v2", quantity: 2 });
    const res = await buy(body, { "payment-signature": await payFor(body, 2) });
    expect(res.status).toBe(201);
    expect(res.body.keys).toHaveLength(2);
    expect(decode(res.headers.get("payment-response"))).toMatchObject({ success: true, network: NETWORK_V2 });
    expect(facilitator.calls.at(-1)!.body.paymentRequirements).toMatchObject({ amount: "36000000", network: NETWORK_V2 });
  });

  it.each([
    ["a lower accepted.amount", 2, { accepted: { amount: "1" } }],
    [
      "a changed payTo",
      2,
      {
        accepted: { payTo: "0x2222222222222222222222222222222222222222" },
        authorization: { to: "0x2222222222222222222222222222222222222222" },
      },
    ],
    ["another asset", 2, { accepted: { asset: "0x3333333333333333333333333333333333333333" } }],
    ["another network", 2, { accepted: { network: "eip155:8453" } }],
    ["an authorization below the price", 1, { authorization: { value: "100" } }],
  ] as const)("402 for %s, and the facilitator is never asked", async (_name, version, overrides) => {
    const body = checkoutBody("http402", { agent_id: `tamper-${_name}` });
    const header = await payFor(body, version, overrides as never);
    const calls = facilitator.calls.length;
    const res = await buy(body, { [version === 1 ? "x-payment" : "payment-signature"]: header });
    expect(res.status).toBe(402);
    expect(res.body.accepts[0].maxAmountRequired).toBe("19000000");
    expect(facilitator.calls.length).toBe(calls);
  });

  it.each([1, 2] as const)(
    "v%i: an authorization for MORE than the price → 402 with fresh requirements before any outside call; the reservation is released",
    async (version) => {
      const body = checkoutBody("http402", { agent_id: `overpay-v${version}` });
      const header = await payFor(body, version, { authorization: { value: "19000001" } });
      const calls = facilitator.calls.length;
      const res = await buy(body, { [version === 1 ? "x-payment" : "payment-signature"]: header });
      expect(res.status).toBe(402);
      expect(res.body.error).toBe("invalid_exact_evm_payload_authorization_value_mismatch");
      expect(res.body.accepts[0].maxAmountRequired).toBe("19000000");
      expect(decode(res.headers.get("payment-required")).accepts[0].amount).toBe("19000000");
      expect(facilitator.calls.length).toBe(calls);
      // Released: the same buyer pays the exact price and gets the first slot's key.
      const ok = await buy(body, { [version === 1 ? "x-payment" : "payment-signature"]: await payFor(body, version) });
      expect(ok.status).toBe(201);
      expect(ok.body.receipt.quote).toMatchObject({ keys_held: 0, amount_usd_micros: 19_000_000 });
    },
  );

  it("an 8-way race of payments signed for the $17 quote: only the purchase that reserves the $17 slot is settled; the chain moved exactly what the receipts say", async () => {
    const body = checkoutBody("http402", { agent_id: "racer" });
    const first = await buy(body, { "x-payment": await payFor(body, 1) });
    expect(first.status).toBe(201);
    const owner = { "x-service-key": first.body.keys[0].key as string };
    const quoted = await svc.request("/api/checkout", { method: "POST", headers: owner, json: body });
    expect(quoted.body.accepts[0].maxAmountRequired).toBe("17000000");
    const headers = await Promise.all(Array.from({ length: 8 }, () => payWith(wallet, 1, quoted.body.accepts[0])));
    const calls = facilitator.calls.length;
    const transfers = facilitator.chain.transfers.length;
    const results = await Promise.all(
      headers.map((h) => svc.request("/api/checkout", { method: "POST", headers: { ...owner, "x-payment": h }, json: body })),
    );
    const paid = results.filter((r) => r.status === 201);
    expect(
      results
        .filter((r) => r.status !== 201)
        .map((r) => `${r.status} ${r.body.error ?? r.body.code}`)
        .filter((s) => s !== "402 invalid_exact_evm_payload_authorization_value_mismatch" && s !== "409 payment_in_progress"),
    ).toEqual([]);
    expect(paid.map((r) => r.body.receipt.quote.amount_usd_micros)).toEqual([17_000_000]);
    const moved = facilitator.chain.transfers.slice(transfers).reduce((sum, t) => sum + t.value, 0n);
    expect(moved).toBe(BigInt(paid.reduce((sum, r) => sum + r.body.receipt.quote.amount_usd_micros, 0)));
    // Refused on our side: the facilitator saw only the one payment that was settled.
    expect(facilitator.calls.slice(calls).map((c) => c.path)).toEqual(["/verify", "/settle"]);
  });

  it.each([
    ["not base64", "%%%not-base64%%%"],
    ["not JSON", Buffer.from("hello").toString("base64")],
    ["over the 8 KB cap", Buffer.from(JSON.stringify({ x402Version: 1, pad: "x".repeat(9000) })).toString("base64")],
    [
      "the wrong shape",
      Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: NETWORK_V1, payload: {} })).toString("base64"),
    ],
  ])("402 payment_malformed for a header that is %s (the spec: an invalid token is a failed payment)", async (_name, header) => {
    for (const name of ["x-payment", "payment-signature"]) {
      const res = await buy(checkoutBody("http402"), { [name]: header });
      expect(res.status).toBe(402);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body).toMatchObject({ status: 402, code: "payment_malformed" });
    }
  });

  it("facilitator says isValid:false → 402, no key", async () => {
    const body = checkoutBody("http402", { agent_id: "invalid-pay" });
    const header = await payFor(body, 1);
    facilitator.mode = "verify_invalid";
    try {
      const res = await buy(body, { "x-payment": header });
      expect(res.status).toBe(402);
      expect(res.body.error).toBe("insufficient_funds");
    } finally {
      facilitator.mode = "ok";
    }
  });

  it("settle fails → 402 with X-PAYMENT-RESPONSE success:false and no key; the same payment can then succeed", async () => {
    const body = checkoutBody("http402", { agent_id: "settle-fail" });
    const header = await payFor(body, 1);
    facilitator.mode = "settle_fail";
    try {
      const res = await buy(body, { "x-payment": header });
      expect(res.status).toBe(402);
      expect(decode(res.headers.get("x-payment-response"))).toMatchObject({ success: false, transaction: "" });
      expect(res.body).not.toHaveProperty("keys");
    } finally {
      facilitator.mode = "ok";
    }
    const ok = await buy(body, { "x-payment": header });
    expect(ok.status).toBe(201);
    expect(ok.body.receipt.quote.keys_held).toBe(0);
  });

  it("replay: the same payment twice → the same 201 and one key; 10 in parallel → one key", async () => {
    const body = checkoutBody("http402", { agent_id: "replayer" });
    const header = await payFor(body, 1);
    const first = await buy(body, { "x-payment": header });
    const second = await buy(body, { "x-payment": header });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    // The account's owner (its key proves it) sees what it holds in a quote.
    const keysOf = async (key: string) =>
      (await svc.request("/api/checkout", { method: "POST", headers: { "x-service-key": key }, json: checkoutBody("http402") })).body.quote
        .keys_held;
    expect(await keysOf(first.body.keys[0].key)).toBe(1);

    const parallelBody = checkoutBody("http402", { agent_id: "parallel-replayer" });
    const parallelHeader = await payFor(parallelBody, 2);
    const settledBefore = facilitator.settled.length;
    const results = await Promise.all(Array.from({ length: 10 }, () => buy(parallelBody, { "payment-signature": parallelHeader })));
    expect(
      results
        .map((r) => (r.status === 201 ? 201 : `${r.status} ${r.body.code}`))
        .filter((s) => s !== 201 && s !== "409 payment_in_progress"),
    ).toEqual([]);
    const keys = new Set(results.filter((r) => r.status === 201).map((r) => r.body.keys[0].key));
    expect(keys.size).toBe(1);
    expect(facilitator.settled.length).toBe(settledBefore + 1);
    expect(await keysOf([...keys][0]!)).toBe(1);
  });

  it("a facilitator that hangs → 502 within the timeout, no key", async () => {
    const body = checkoutBody("http402", { agent_id: "hang" });
    const header = await payFor(body, 1);
    facilitator.mode = "hang";
    try {
      const started = Date.now();
      const res = await buy(body, { "x-payment": header });
      expect(res.status).toBe(502);
      expect(res.body.code).toBe("payment_gateway_error");
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      facilitator.mode = "ok";
    }
  });

  it("CORS: a preflight allows PAYMENT-SIGNATURE and responses expose PAYMENT-RESPONSE", async () => {
    const res = await fetch(`${svc.url}/api/checkout`, {
      method: "OPTIONS",
      headers: {
        origin: "https://agent.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "payment-signature",
      },
    });
    expect(res.headers.get("access-control-allow-headers")).toMatch(/PAYMENT-SIGNATURE/i);
    expect((await buy(checkoutBody("http402"))).headers.get("access-control-expose-headers")).toMatch(/PAYMENT-RESPONSE/);
  });
});
