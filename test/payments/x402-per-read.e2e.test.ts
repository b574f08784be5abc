/**
 * x402 per read: a wallet-only agent pays $0.002 for one read of a gated node, with the official
 * client (`@x402/fetch` + `@x402/evm`, a fresh viem key) against a facilitator built from
 * `@x402/core`'s own facilitator code, only the chain mocked; real HTTP on a real port. The free
 * view stays the default; `pay=x402` asks to pay. One authorization is one read, however wrapped
 * and however often sent; a refused or unsettled payment serves nothing.
 */

import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { BASE_MAINNET_USDC, BASE_SEPOLIA_USDC } from "./stand-ins/evm-chain.ts";
import { type FacilitatorStandIn, PAY_TO, payWith, startFacilitator, type Wallet, x402Env } from "./stand-ins/x402-facilitator.ts";
import { startPaymentsService } from "./start-payments-service.ts";

const PRICE = 2_000n; // $0.002 in USDC's 6-decimal units
const NODE = "/api/demo?vertical=travel&node=trv-m7";
const PAID = `${NODE}&pay=x402`;
const NETWORKS = [
  ["Base mainnet", "base", BASE_MAINNET_USDC],
  ["Base Sepolia", "base-sepolia", BASE_SEPOLIA_USDC],
] as const;

let facilitator: FacilitatorStandIn;
const services = new Map<string, TestService>();
beforeAll(async () => {
  facilitator = await startFacilitator();
  for (const [, network] of NETWORKS)
    services.set(network, await startPaymentsService({ ...x402Env(facilitator, network), PAYMENT_TIMEOUT_MS: "1000" }));
});
afterAll(async () => {
  for (const svc of services.values()) await svc.close();
  await facilitator?.close();
});

const sepolia = () => services.get("base-sepolia")!;
const decode = (header: string) => JSON.parse(Buffer.from(header, "base64").toString("utf8"));
const settlementsOf = (wallet: Wallet) => facilitator.chain.transfers.filter((t) => t.from === wallet.address.toLowerCase());
const settleCalls = () => facilitator.calls.filter((c) => c.path === "/settle").length;

function officialClient(wallet: Wallet) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: wallet });
  return wrapFetchWithPayment(fetch, client);
}

/** The 402 of a paid URL, and a payment signed for it (v2 PAYMENT-REQUIRED or the v1 body). */
async function requirementOf(svc: TestService, path = PAID, version: 1 | 2 = 2) {
  const res = await svc.request(path);
  expect(res.status).toBe(402);
  return version === 2 ? decode(res.headers.get("payment-required")!).accepts[0] : res.body.accepts[0];
}

describe.each(NETWORKS)("the official x402 client pays per read on %s", (_name, network, token) => {
  it("no key: the documented paid URL answers 402, the client pays $0.002 and gets the unlocked node with PAYMENT-RESPONSE", async () => {
    const svc = services.get(network)!;
    const wallet = facilitator.wallet();
    const res = await officialClient(wallet)(`${svc.url}${PAID}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.node.locked_layers).toEqual([]);
    const receipt = decodePaymentResponseHeader(res.headers.get("payment-response")!);
    expect(receipt).toMatchObject({ success: true, network: token.network });
    expect(settlementsOf(wallet)).toEqual([expect.objectContaining({ network: token.network, to: PAY_TO, value: PRICE })]);
  });
});

describe("the free view stays the default", () => {
  it("without pay=x402 a gated node is the free locked view; its unlock hint gives the paid URL", async () => {
    const res = await sepolia().request(NODE);
    expect(res.status).toBe(200);
    expect(res.body.node.locked_layers.length).toBeGreaterThan(0);
    expect(res.body.unlock.pay_per_read).toEqual({ method: "http402", path: PAID, price_usd: "0.002" });
    expect(res.headers.get("payment-required")).toBeNull();
  });

  it("the index and the fully open verticals never ask for payment, even with pay=x402", async () => {
    const svc = sepolia();
    const before = facilitator.calls.length;
    expect((await svc.request("/api/demo?vertical=travel&pay=x402")).status).toBe(200);
    expect((await svc.request("/api/demo?vertical=a2a-handoff&node=a2a-one&pay=x402")).status).toBe(200);
    expect(facilitator.calls.length).toBe(before);
  });

  it("/api/status says which reads can be paid per use with x402, and how", async () => {
    const res = await sepolia().request("/api/status");
    const x402 = res.body.per_use.find((m: { method: string }) => m.method === "http402");
    expect(x402).toMatchObject({ price_usd: "0.002", details: { network: BASE_SEPOLIA_USDC.network, pay_to: PAY_TO } });
    expect(x402.how).toContain("pay=x402");
    expect(x402.reads).toContain("POST /api/evaluate");
  });

  it("the 402 describes the resource for discovery (v2 resource, extensions.bazaar; v1 outputSchema)", async () => {
    const res = await sepolia().request(PAID);
    expect(res.status).toBe(402);
    expect(res.body.code).toBe("read_payment_required");
    const required = decode(res.headers.get("payment-required")!);
    expect(required.x402Version).toBe(2);
    expect(required.resource.url).toMatch(/\/api\/demo\?vertical=travel&node=trv-m7&pay=x402$/);
    expect(required.resource.mimeType).toBe("application/json");
    expect(required.resource.description).toContain("travel/trv-m7");
    expect(required.extensions.bazaar.info.input).toMatchObject({ type: "http", method: "GET" });
    expect(required.accepts[0]).toMatchObject({ amount: "2000", payTo: PAY_TO, network: BASE_SEPOLIA_USDC.network });
    expect(res.body.accepts[0]).toMatchObject({ maxAmountRequired: "2000", network: "base-sepolia" });
    expect(res.body.accepts[0].outputSchema.input.method).toBe("GET");
  });
});

describe("one payment is one read", () => {
  it("the same header sent again, and its v1 twin, are 402 with no content; one settlement", async () => {
    const svc = sepolia();
    const wallet = facilitator.wallet();
    const requirement = await requirementOf(svc);
    const v2 = await payWith(wallet, 2, requirement);
    const first = await svc.request(PAID, { headers: { "payment-signature": v2 } });
    expect(first.status).toBe(200);
    const again = await svc.request(PAID, { headers: { "payment-signature": v2 } });
    expect(again.status).toBe(402);
    expect(again.body.node).toBeUndefined();
    // The v1 twin: the same authorization and signature, wrapped as x402 v1.
    const payload = decode(v2);
    const v1 = Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network: "base-sepolia", payload: payload.payload })).toString(
      "base64",
    );
    const twin = await svc.request(PAID, { headers: { "x-payment": v1 } });
    expect(twin.status).toBe(402);
    expect(twin.body.node).toBeUndefined();
    expect(settlementsOf(wallet)).toHaveLength(1);
  });

  it("48 concurrent requests with one payment: one read, one settlement, the rest 402/409 with no content", async () => {
    const svc = sepolia();
    const wallet = facilitator.wallet();
    const v2 = await payWith(wallet, 2, await requirementOf(svc));
    const settlesBefore = settleCalls();
    const answers = await Promise.all(Array.from({ length: 48 }, () => svc.request(PAID, { headers: { "payment-signature": v2 } })));
    const served = answers.filter((a) => a.status === 200);
    expect(served).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      expect([402, 409]).toContain(a.status);
      expect(a.body.node).toBeUndefined();
    }
    expect(settlementsOf(wallet)).toHaveLength(1);
    expect(settleCalls() - settlesBefore).toBe(1);
  });

  it("different payments concurrently: each is its own read", async () => {
    const svc = sepolia();
    const wallet = facilitator.wallet();
    const requirement = await requirementOf(svc);
    const payments = await Promise.all(Array.from({ length: 12 }, () => payWith(wallet, 2, requirement)));
    const answers = await Promise.all(payments.map((p) => svc.request(PAID, { headers: { "payment-signature": p } })));
    expect(answers.map((a) => a.status)).toEqual(payments.map(() => 200));
    expect(settlementsOf(wallet)).toHaveLength(12);
  });
});

describe("refused payments serve nothing", () => {
  const cases: Array<[string, (requirement: any, wallet: Wallet) => Parameters<typeof payWith>[3], string | RegExp]> = [
    ["underpaid", () => ({ overrides: { authorization: { value: "1000" }, accepted: { amount: "1000" } } }), /mismatch|value/],
    [
      "expired",
      () => ({ overrides: { authorization: { validBefore: String(Math.floor(Date.now() / 1000) - 60) } } }),
      /valid_before|expired/,
    ],
    ["wrong recipient", () => ({ overrides: { authorization: { to: "0x2222222222222222222222222222222222222222" } } }), /recipient/],
    ["wrong network", () => ({ overrides: { accepted: { network: BASE_MAINNET_USDC.network } } }), /network|mismatch/],
    ["wrong asset", () => ({ overrides: { accepted: { asset: BASE_MAINNET_USDC.address } } }), /mismatch|asset/],
  ];
  it.each(cases)("%s: 402 read_payment_required with fresh requirements, no content, nothing settled", async (_name, options, reason) => {
    const svc = sepolia();
    const wallet = facilitator.wallet();
    const requirement = await requirementOf(svc);
    const payment = await payWith(wallet, 2, requirement, options(requirement, wallet));
    const res = await svc.request(PAID, { headers: { "payment-signature": payment } });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe("read_payment_required");
    expect(res.body.node).toBeUndefined();
    expect(decode(res.headers.get("payment-required")!).error).toMatch(reason);
    expect(settlementsOf(wallet)).toHaveLength(0);
  });

  it("a wrong-network v1 payment is refused before any facilitator call", async () => {
    const svc = sepolia();
    const wallet = facilitator.wallet();
    const requirement = { ...(await requirementOf(svc, PAID, 1)), network: "base" };
    const before = facilitator.calls.length;
    const res = await svc.request(PAID, { headers: { "x-payment": await payWith(wallet, 1, requirement) } });
    expect(res.status).toBe(402);
    expect(res.body.error).toBe("invalid_network");
    expect(facilitator.calls.length).toBe(before);
  });

  it.each(["settle_hang", "settle_5xx", "settle_garbage"] as const)(
    "%s: 502 and no content; the same payment sent again settles once and is served once",
    async (mode) => {
      const svc = sepolia();
      const wallet = facilitator.wallet();
      const payment = await payWith(wallet, 2, await requirementOf(svc));
      facilitator.mode = mode;
      try {
        const failed = await svc.request(PAID, { headers: { "payment-signature": payment } });
        expect(failed.status).toBe(502);
        expect(failed.body.code).toBe("payment_gateway_error");
        expect(failed.body.node).toBeUndefined();
      } finally {
        facilitator.mode = "ok";
      }
      expect(settlementsOf(wallet)).toHaveLength(0);
      const retried = await svc.request(PAID, { headers: { "payment-signature": payment } });
      expect(retried.status).toBe(200);
      expect(retried.body.node.locked_layers).toEqual([]);
      expect(retried.headers.get("payment-response")).toBeTruthy();
      const replay = await svc.request(PAID, { headers: { "payment-signature": payment } });
      expect(replay.status).toBe(402);
      expect(settlementsOf(wallet)).toHaveLength(1);
    },
  );

  it("a settle the facilitator refuses: 402 with PAYMENT-RESPONSE success false, no content", async () => {
    const svc = sepolia();
    const wallet = facilitator.wallet();
    const payment = await payWith(wallet, 2, await requirementOf(svc));
    facilitator.mode = "settle_fail";
    try {
      const res = await svc.request(PAID, { headers: { "payment-signature": payment } });
      expect(res.status).toBe(402);
      expect(res.body.node).toBeUndefined();
      expect(decodePaymentResponseHeader(res.headers.get("payment-response")!).success).toBe(false);
    } finally {
      facilitator.mode = "ok";
    }
    expect(settlementsOf(wallet)).toHaveLength(0);
  });
});

describe("POST /api/evaluate per read", () => {
  it("a gated node's rules: 402 with pay=x402, then the official client pays and gets the evaluation", async () => {
    const svc = sepolia();
    const wallet = facilitator.wallet();
    const body = JSON.stringify({ vertical: "travel", node: "trv-m7", facts: {} });
    const required = await svc.request("/api/evaluate?pay=x402", {
      method: "POST",
      json: { vertical: "travel", node: "trv-m7", facts: {} },
    });
    expect(required.status).toBe(402);
    expect(required.body.code).toBe("read_payment_required");
    const res = await officialClient(wallet)(`${svc.url}/api/evaluate?pay=x402`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).node).toBe("trv-m7");
    expect(res.headers.get("payment-response")).toBeTruthy();
    expect(settlementsOf(wallet)).toHaveLength(1);
  });
});
