/**
 * x402 per read over MCP, with the official MCP SDK client and the official x402 client (the
 * payment payload made by `@x402/core`'s `x402Client` with `@x402/evm`'s exact scheme, a fresh
 * viem key) against the `@x402/core` facilitator, chain mocked. get_node and evaluate_rules with
 * `pay: "x402"` and no key: an isError result carrying the x402 requirements in
 * `_meta["x402/payment-required"]`; the same call with `_meta["x402/payment"]` is served once,
 * with `_meta["x402/payment-response"]`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestService } from "../helpers/test-service.ts";
import { BASE_MAINNET_USDC, BASE_SEPOLIA_USDC } from "./stand-ins/evm-chain.ts";
import { type FacilitatorStandIn, PAY_TO, startFacilitator, type Wallet, x402Env } from "./stand-ins/x402-facilitator.ts";
import { startPaymentsService } from "./start-payments-service.ts";

const NETWORKS = [
  ["Base mainnet", "base", BASE_MAINNET_USDC],
  ["Base Sepolia", "base-sepolia", BASE_SEPOLIA_USDC],
] as const;

let facilitator: FacilitatorStandIn;
const services = new Map<string, TestService>();
const clients: Client[] = [];
beforeAll(async () => {
  facilitator = await startFacilitator();
  for (const [, network] of NETWORKS) services.set(network, await startPaymentsService(x402Env(facilitator, network)));
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  for (const svc of services.values()) await svc.close();
  await facilitator?.close();
});

async function connect(svc: TestService): Promise<Client> {
  const client = new Client({ name: "x402-per-read-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`)));
  clients.push(client);
  return client;
}

function payer(wallet: Wallet) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: wallet });
  return client;
}

const settlementsOf = (wallet: Wallet) => facilitator.chain.transfers.filter((t) => t.from === wallet.address.toLowerCase());

describe.each(NETWORKS)("MCP per read on %s", (_name, network, token) => {
  it("get_node: without pay the free view; with pay the requirements; with the payment the unlocked node, once", async () => {
    const svc = services.get(network)!;
    const mcp = await connect(svc);
    const wallet = facilitator.wallet();
    const args = { vertical: "travel", node: "trv-m7" };

    const free = (await mcp.callTool({ name: "get_node", arguments: args })) as any;
    expect(free.isError).toBeFalsy();
    expect(free.structuredContent.node.locked_layers.length).toBeGreaterThan(0);

    const asked = (await mcp.callTool({ name: "get_node", arguments: { ...args, pay: "x402" } })) as any;
    expect(asked.isError).toBe(true);
    const required = asked._meta["x402/payment-required"];
    expect(required).toMatchObject({
      x402Version: 2,
      accepts: [expect.objectContaining({ amount: "2000", payTo: PAY_TO, network: token.network })],
    });
    expect(JSON.parse(asked.content[1].text)).toEqual(required);
    expect(required.resource.description).toContain("travel/trv-m7");

    const payment = await payer(wallet).createPaymentPayload(required);
    const paid = (await mcp.callTool({ name: "get_node", arguments: { ...args, pay: "x402" }, _meta: { "x402/payment": payment } })) as any;
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent.node.locked_layers).toEqual([]);
    expect(paid._meta["x402/payment-response"]).toMatchObject({ success: true, network: token.network });

    const replay = (await mcp.callTool({
      name: "get_node",
      arguments: { ...args, pay: "x402" },
      _meta: { "x402/payment": payment },
    })) as any;
    expect(replay.isError).toBe(true);
    expect(replay.structuredContent).toBeUndefined();
    expect(settlementsOf(wallet)).toEqual([expect.objectContaining({ to: PAY_TO, value: 2_000n })]);
  });

  it("evaluate_rules: the requirements, then the evaluation paid once", async () => {
    const svc = services.get(network)!;
    const mcp = await connect(svc);
    const wallet = facilitator.wallet();
    const args = { vertical: "travel", node: "trv-m7", facts: {}, pay: "x402" };
    const asked = (await mcp.callTool({ name: "evaluate_rules", arguments: args })) as any;
    expect(asked.isError).toBe(true);
    const payment = await payer(wallet).createPaymentPayload(asked._meta["x402/payment-required"]);
    const paid = (await mcp.callTool({ name: "evaluate_rules", arguments: args, _meta: { "x402/payment": payment } })) as any;
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent.node).toBe("trv-m7");
    expect(paid._meta["x402/payment-response"].success).toBe(true);
    expect(settlementsOf(wallet)).toHaveLength(1);
  });
});
