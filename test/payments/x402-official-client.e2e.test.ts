/**
 * A real x402 buyer: the official client (`@x402/fetch` with `@x402/evm`'s exact scheme and a
 * throwaway private key) buys a membership key against a facilitator built from `@x402/core` and
 * `@x402/evm`'s own facilitator code, with only the chain mocked (`stand-ins/evm-chain.ts`, where
 * each token checks signatures against its own EIP-712 domain). Base mainnet and Base Sepolia,
 * x402 v2 and v1, from Node and from Chromium (a page on another origin, served here, loading the
 * client bundled by esbuild), so CORS is exercised as a browser buyer meets it.
 *
 * v1 from Node: the official client prefers the v2 PAYMENT-REQUIRED header and falls back to the
 * 402 body's v1 requirements when a response has none, as from a v1 server; the v1 cases drop that
 * header on the way in, so the client takes the v1 path (X-PAYMENT) with its own v1 scheme.
 */

import { existsSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { build } from "esbuild";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { BASE_MAINNET_USDC, BASE_SEPOLIA_USDC, type TokenFacts } from "./stand-ins/evm-chain.ts";
import { type FacilitatorStandIn, PAY_TO, startFacilitator, type Wallet, x402Env } from "./stand-ins/x402-facilitator.ts";
import { checkoutBody, startPaymentsService } from "./start-payments-service.ts";

const CHROMIUM = "/usr/bin/chromium";
const PRICE = 19_000_000n; // one travel key, first month, in USDC's 6-decimal units
const NETWORKS = [
  ["Base mainnet", "base", BASE_MAINNET_USDC],
  ["Base Sepolia", "base-sepolia", BASE_SEPOLIA_USDC],
] as const;

let facilitator: FacilitatorStandIn;
const services = new Map<string, TestService>();
beforeAll(async () => {
  facilitator = await startFacilitator();
  for (const [, network, token] of NETWORKS) {
    // X402_ASSET names the network's USDC, as a deployment that predates the library's table would.
    services.set(network, await startPaymentsService({ ...x402Env(facilitator, network), X402_ASSET: token.address }));
  }
});
afterAll(async () => {
  for (const svc of services.values()) await svc.close();
  await facilitator?.close();
});

/** The official client as a buyer sets it up: the exact scheme, and a spend cap raised to the price. */
function officialClient(wallet: Wallet, version: 1 | 2) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: wallet });
  client.setSpendControls({ maxAmountPerPayment: "$100" });
  const transport: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (version === 2 || res.status !== 402) return res;
    const headers = new Headers(res.headers);
    headers.delete("payment-required");
    return new Response(await res.arrayBuffer(), { status: res.status, headers });
  };
  return wrapFetchWithPayment(transport, client);
}

function expectPaid(token: TokenFacts, wallet: Wallet, before: number) {
  const mine = facilitator.chain.transfers.slice(before).filter((t) => t.from === wallet.address.toLowerCase());
  expect(mine).toEqual([expect.objectContaining({ network: token.network, to: PAY_TO, value: PRICE })]);
  return mine[0]!;
}

describe.each(NETWORKS)("the official x402 client from Node on %s", (_name, network, token) => {
  it.each([2, 1] as const)("x402 v%i: one POST buys a key; the chain moved exactly the price to X402_PAY_TO", async (version) => {
    const svc = services.get(network)!;
    const wallet = facilitator.wallet();
    const before = facilitator.chain.transfers.length;
    const pay = officialClient(wallet, version);
    const res = await pay(`${svc.url}/api/checkout`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(checkoutBody("http402", { agent_id: `official-${network}-v${version}` })),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.keys).toHaveLength(1);
    const transfer = expectPaid(token, wallet, before);
    const receipt = decodePaymentResponseHeader(res.headers.get(version === 2 ? "payment-response" : "x-payment-response")!);
    expect(receipt).toMatchObject({ success: true, transaction: transfer.hash });
    expect(body.receipt.transaction).toBe(transfer.hash);
    expect(facilitator.chain.balanceOf(token.network, wallet.address)).toBe(1_000_000_000n - PRICE);
  });
});

describe("the official x402 client from Chromium (a page on another origin)", () => {
  let context: BrowserContext;
  let page: Server;
  let pageUrl: string;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: run scripts/ensure-services.sh (npm test does) to install Debian's chromium`);
    const bundle = await build({
      entryPoints: ["test/payments/browser/x402-buyer.ts"],
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      target: "chrome120",
      logLevel: "silent",
    });
    const script = bundle.outputFiles[0]!.text;
    page = createServer((req, res) => {
      if (req.url === "/buyer.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(script);
      res.writeHead(200, { "content-type": "text/html" }).end('<!doctype html><title>buyer</title><script src="/buyer.js"></script>');
    });
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
    // localhost vs 127.0.0.1: another origin than the service's, so every request is cross-origin.
    pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`;
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "vkr-chromium-")), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  afterAll(async () => {
    await context?.close();
    await new Promise((resolve) => page?.close(resolve));
  });

  it.each(NETWORKS)(
    "on %s: the paid retry passes the preflight, the key is bought and PAYMENT-RESPONSE is readable",
    async (_name, network, token) => {
      const svc = services.get(network)!;
      const wallet = facilitator.wallet();
      const before = facilitator.chain.transfers.length;
      const tab = await context.newPage();
      try {
        await tab.goto(pageUrl);
        const result = await tab.evaluate(
          ([url, key, body]) =>
            (window as unknown as { buyWithX402(u: string, k: string, b: unknown): Promise<any> }).buyWithX402(url, key, body),
          [`${svc.url}/api/checkout`, wallet.privateKey, checkoutBody("http402", { agent_id: `browser-${network}` })] as const,
        );
        expect(result.error).toBeNull();
        expect(result.status, JSON.stringify(result.body)).toBe(201);
        expect(result.body.keys).toHaveLength(1);
        const transfer = expectPaid(token, wallet, before);
        expect(decodePaymentResponseHeader(result.paymentResponse)).toMatchObject({ success: true, transaction: transfer.hash });
      } finally {
        await tab.close();
      }
    },
  );
});
