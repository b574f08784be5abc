/**
 * An x402 facilitator built from the protocol's own code: `@x402/core`'s `x402Facilitator` with
 * `@x402/evm`'s exact scheme (v2 and v1), served over HTTP as `GET /supported`, `POST /verify` and
 * `POST /settle`. Only the chain is mocked (`evm-chain.ts`: balances, nonces, transactions), and
 * every signature is checked for real against the token's EIP-712 domain, so a payment passes here
 * exactly when it would pass on chain. Wallets are throwaway private keys.
 *
 * `mode` lets a test make the facilitator refuse, fail to settle or hang; `networks` chooses what
 * it can settle on (a facilitator for testnets only, say).
 */

import { randomBytes } from "node:crypto";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/facilitator";
import { getAddress, type Hex } from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { BASE_MAINNET_USDC, BASE_SEPOLIA_USDC, createMockChain, type MockChain, type TokenFacts } from "./evm-chain.ts";
import { type StandInServer, startStandIn } from "./http-stand-in.ts";

export const PAY_TO = "0x1111111111111111111111111111111111111111";
export const ASSET = BASE_SEPOLIA_USDC.address;
export const NETWORK_V1 = "base-sepolia";
export const NETWORK_V2 = BASE_SEPOLIA_USDC.network;
const V1_NAMES = new Map([
  [BASE_MAINNET_USDC.network, "base"],
  [BASE_SEPOLIA_USDC.network, "base-sepolia"],
]);

/** A throwaway account, with its key for a client that runs elsewhere (a browser page). */
export type Wallet = PrivateKeyAccount & { privateKey: Hex };

export interface FacilitatorCall {
  path: "/verify" | "/settle";
  headers: Record<string, string | string[] | undefined>;
  body: { x402Version: number; paymentPayload: any; paymentRequirements: any };
}

export interface FacilitatorStandIn extends StandInServer {
  chain: MockChain;
  calls: FacilitatorCall[];
  /** Transaction hashes of successful settlements, in order. */
  settled: string[];
  /** Headers of every request (auth checks). */
  requestHeaders: Array<Record<string, string | string[] | undefined>>;
  /**
   * Overrides: answer isValid:false, success:false, or never answer; or, with verify working, a
   * `/settle` that never answers, fails with a 503 (a protocol-shaped body), or answers 200 with
   * something that is no settle response. None of the `settle_*` failures settles anything.
   */
  mode: "ok" | "verify_invalid" | "settle_fail" | "hang" | "settle_hang" | "settle_5xx" | "settle_garbage";
  /** A throwaway wallet funded on every network of this facilitator. */
  wallet(funds?: bigint): Wallet;
}

export async function startFacilitator(options: { networks?: TokenFacts[] } = {}): Promise<FacilitatorStandIn> {
  const tokens = options.networks ?? [BASE_SEPOLIA_USDC, BASE_MAINNET_USDC];
  const chain = createMockChain([BASE_MAINNET_USDC, BASE_SEPOLIA_USDC]);
  const facilitator = new x402Facilitator();
  for (const token of tokens) {
    const signer = chain.signer(token.network);
    facilitator.register(token.network as `${string}:${string}`, new ExactEvmScheme(signer));
    facilitator.registerV1(V1_NAMES.get(token.network)! as `${string}:${string}`, new ExactEvmSchemeV1(signer));
  }
  const calls: FacilitatorCall[] = [];
  const settled: string[] = [];
  const requestHeaders: FacilitatorStandIn["requestHeaders"] = [];

  const server = await startStandIn(async (req) => {
    requestHeaders.push(req.headers);
    if (req.method === "GET" && req.path === "/supported") return { status: 200, body: facilitator.getSupported() };
    if (req.method !== "POST" || (req.path !== "/verify" && req.path !== "/settle")) return { status: 404, body: {} };
    const body = JSON.parse(req.body) as FacilitatorCall["body"];
    calls.push({ path: req.path, headers: req.headers, body });
    if (stand.mode === "hang") return null;
    const payer = body.paymentPayload?.payload?.authorization?.from ?? null;
    const network = body.paymentRequirements?.network ?? "";
    if (req.path === "/verify") {
      if (stand.mode === "verify_invalid") return { status: 200, body: { isValid: false, invalidReason: "insufficient_funds", payer } };
      return {
        status: 200,
        body: await facilitator
          .verify(body.paymentPayload, body.paymentRequirements)
          .catch((error: Error) => ({ isValid: false, invalidReason: "unexpected_verify_error", invalidMessage: error.message, payer })),
      };
    }
    if (stand.mode === "settle_hang") return null;
    if (stand.mode === "settle_5xx")
      return { status: 503, body: { success: false, errorReason: "unexpected_settle_error", payer, transaction: "", network } };
    if (stand.mode === "settle_garbage") return { status: 200, body: { ok: true, tx: "maybe" } };
    if (stand.mode === "settle_fail")
      return { status: 200, body: { success: false, errorReason: "insufficient_funds", payer, transaction: "", network } };
    const result = await facilitator.settle(body.paymentPayload, body.paymentRequirements).catch((error: Error) => ({
      success: false,
      errorReason: "unexpected_settle_error",
      errorMessage: error.message,
      payer,
      transaction: "",
      network,
    }));
    if (result.success) settled.push(result.transaction);
    return { status: 200, body: result };
  });

  const stand: FacilitatorStandIn = {
    ...server,
    chain,
    calls,
    settled,
    requestHeaders,
    mode: "ok",
    wallet(funds = 1_000_000_000n) {
      const privateKey = generatePrivateKey();
      const account = Object.assign(privateKeyToAccount(privateKey), { privateKey });
      for (const token of [BASE_MAINNET_USDC, BASE_SEPOLIA_USDC]) chain.fund(token.network, account.address, funds);
      return account;
    },
  };
  return stand;
}

/**
 * Signs a payment for the requirements the server sent (v1 body entry or v2 PAYMENT-REQUIRED
 * entry) as the official client does: an EIP-3009 authorization signed over the EIP-712 domain
 * the requirement names. `overrides` tamper with the authorization or the echoed requirement.
 */
export async function payWith(
  wallet: Wallet,
  version: 1 | 2,
  requirement: any,
  options: { overrides?: { authorization?: Record<string, string>; accepted?: Record<string, unknown> } } = {},
): Promise<string> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const authorization: Record<string, string> = {
    from: wallet.address,
    to: getAddress(requirement.payTo),
    value: String(requirement.amount ?? requirement.maxAmountRequired),
    validAfter: String(nowSeconds - 600),
    validBefore: String(nowSeconds + 600),
    nonce: `0x${randomBytes(32).toString("hex")}`,
    ...options.overrides?.authorization,
  };
  const network = String(requirement.network);
  const caip = network.startsWith("eip155:") ? network : [...V1_NAMES].find(([, v1]) => v1 === network)?.[0];
  const chainId = Number(String(caip).split(":")[1]);
  const signature = await wallet.signTypedData({
    domain: {
      name: requirement.extra?.name,
      version: requirement.extra?.version,
      chainId,
      verifyingContract: getAddress(requirement.asset) as Hex,
    },
    types: {
      TransferWithAuthorization: [
        { name: "from", type: "address" },
        { name: "to", type: "address" },
        { name: "value", type: "uint256" },
        { name: "validAfter", type: "uint256" },
        { name: "validBefore", type: "uint256" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "TransferWithAuthorization",
    message: {
      from: authorization.from as Hex,
      to: authorization.to as Hex,
      value: BigInt(authorization.value!),
      validAfter: BigInt(authorization.validAfter!),
      validBefore: BigInt(authorization.validBefore!),
      nonce: authorization.nonce as Hex,
    },
  });
  const payload = { signature, authorization };
  const body =
    version === 1
      ? { x402Version: 1, scheme: requirement.scheme, network: requirement.network, payload }
      : { x402Version: 2, resource: undefined, accepted: { ...requirement, ...options.overrides?.accepted }, payload };
  return Buffer.from(JSON.stringify(body)).toString("base64");
}

/**
 * Other wrappings of one v2 payment: its v1 twin (the same authorization and signature, as
 * `X-PAYMENT`) and the same v2 payload re-encoded (another header string, one authorization).
 */
export function twinsOf(v2Header: string): Record<string, string>[] {
  const decoded = JSON.parse(Buffer.from(v2Header, "base64").toString("utf8"));
  const v1Network = V1_NAMES.get(decoded.accepted.network) ?? decoded.accepted.network;
  const v1 = { x402Version: 1, scheme: "exact", network: v1Network, payload: decoded.payload };
  const reordered = { payload: decoded.payload, accepted: decoded.accepted, x402Version: 2 };
  return [
    { "x-payment": Buffer.from(JSON.stringify(v1)).toString("base64") },
    { "payment-signature": Buffer.from(JSON.stringify(reordered, null, 1)).toString("base64") },
  ];
}

/** The environment of a deployment paid through this facilitator (Base Sepolia unless told). */
export function x402Env(stand: FacilitatorStandIn, network: "base" | "base-sepolia" | string = NETWORK_V1): Record<string, string> {
  return { X402_FACILITATOR_URL: stand.url, X402_PAY_TO: PAY_TO, X402_NETWORK: network };
}
