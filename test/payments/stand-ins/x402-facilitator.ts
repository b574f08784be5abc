/**
 * A stand-in x402 facilitator speaking the real wire protocol: `POST /verify` and `POST /settle`
 * take `{ x402Version, paymentPayload, paymentRequirements }` and answer `{ isValid, invalidReason,
 * payer }` / `{ success, errorReason, payer, transaction, network }`; `GET /supported` lists kinds.
 * Its "chain" is a set of test wallets: a payload is validly signed when `signature` is the
 * wallet's HMAC over the authorization (standing in for EIP-3009 + EIP-712), and each nonce
 * settles once, as the token contract enforces.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";
import { startStandIn, type StandInServer } from "./http-stand-in.ts";

export const PAY_TO = "0x1111111111111111111111111111111111111111";
export const ASSET = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const NETWORK_V1 = "base-sepolia";
export const NETWORK_V2 = "eip155:84532";

export interface Wallet {
  address: string;
  secret: string;
}

export interface FacilitatorCall {
  path: "/verify" | "/settle";
  body: { x402Version: number; paymentPayload: any; paymentRequirements: any };
}

export interface FacilitatorStandIn extends StandInServer {
  calls: FacilitatorCall[];
  settled: string[];
  /** Overrides: answer isValid:false, success:false, or never answer. */
  mode: "ok" | "verify_invalid" | "settle_fail" | "hang";
  wallet(): Wallet;
}

export async function startFacilitator(): Promise<FacilitatorStandIn> {
  const wallets = new Map<string, string>();
  const usedNonces = new Set<string>();
  const calls: FacilitatorCall[] = [];
  const settled: string[] = [];

  const check = (body: FacilitatorCall["body"]): string | null => {
    const { paymentPayload: p, paymentRequirements: r } = body;
    if (!p || !r) return "invalid_payload";
    const auth = p.payload?.authorization;
    const secret = auth && wallets.get(String(auth.from).toLowerCase());
    if (!secret || p.payload.signature !== signAuthorization(secret, auth)) return "invalid_exact_evm_payload_signature";
    if (String(auth.to).toLowerCase() !== String(r.payTo).toLowerCase()) return "invalid_exact_evm_payload_recipient_mismatch";
    const required = BigInt(r.amount ?? r.maxAmountRequired);
    if (BigInt(auth.value) < required) return "invalid_exact_evm_payload_authorization_value";
    if (usedNonces.has(auth.nonce)) return "invalid_exact_evm_payload_authorization_nonce_used";
    return null;
  };

  const server = await startStandIn(async (req) => {
    if (req.method === "GET" && req.path === "/supported") {
      return { status: 200, body: { kinds: [{ x402Version: 1, scheme: "exact", network: NETWORK_V1 }, { x402Version: 2, scheme: "exact", network: NETWORK_V2 }], extensions: [], signers: {} } };
    }
    if (req.method !== "POST" || (req.path !== "/verify" && req.path !== "/settle")) return { status: 404, body: {} };
    const body = JSON.parse(req.body) as FacilitatorCall["body"];
    calls.push({ path: req.path, body });
    if (stand.mode === "hang") return null;
    const payer = body.paymentPayload?.payload?.authorization?.from ?? null;
    const network = body.paymentRequirements?.network ?? "";
    if (req.path === "/verify") {
      const reason = stand.mode === "verify_invalid" ? "insufficient_funds" : check(body);
      return { status: 200, body: reason ? { isValid: false, invalidReason: reason, payer } : { isValid: true, payer } };
    }
    const reason = stand.mode === "settle_fail" ? "insufficient_funds" : check(body);
    if (reason) return { status: 200, body: { success: false, errorReason: reason, payer, transaction: "", network } };
    usedNonces.add(body.paymentPayload.payload.authorization.nonce);
    const transaction = `0x${createHash("sha256").update(body.paymentPayload.payload.authorization.nonce).digest("hex")}`;
    settled.push(transaction);
    return { status: 200, body: { success: true, payer, transaction, network } };
  });

  const stand: FacilitatorStandIn = {
    ...server,
    calls,
    settled,
    mode: "ok",
    wallet() {
      const address = `0x${randomBytes(20).toString("hex")}`;
      const secret = randomBytes(16).toString("hex");
      wallets.set(address, secret);
      return { address, secret };
    },
  };
  return stand;
}

export function signAuthorization(secret: string, auth: Record<string, string>): string {
  const canonical = ["from", "to", "value", "validAfter", "validBefore", "nonce"].map((k) => `${k}=${auth[k]}`).join("&");
  return `0x${createHmac("sha256", secret).update(canonical).digest("hex")}`;
}

/**
 * Builds the client's payment header from the requirements the server sent (v1 body entry or v2
 * PAYMENT-REQUIRED entry), as an x402 client would; `overrides` tamper with it.
 */
export function payWith(wallet: Wallet, version: 1 | 2, requirement: any, options: { nowSeconds: number; overrides?: { authorization?: Record<string, string>; accepted?: Record<string, unknown> } }): string {
  const authorization: Record<string, string> = {
    from: wallet.address,
    to: requirement.payTo,
    value: String(requirement.amount ?? requirement.maxAmountRequired),
    validAfter: String(options.nowSeconds - 60),
    validBefore: String(options.nowSeconds + 600),
    nonce: `0x${randomBytes(32).toString("hex")}`,
    ...options.overrides?.authorization,
  };
  const payload = { signature: signAuthorization(wallet.secret, authorization), authorization };
  const body =
    version === 1
      ? { x402Version: 1, scheme: requirement.scheme, network: requirement.network, payload }
      : { x402Version: 2, accepted: { ...requirement, ...options.overrides?.accepted }, payload };
  return Buffer.from(JSON.stringify(body)).toString("base64");
}

export function x402Env(stand: FacilitatorStandIn): Record<string, string> {
  return { X402_FACILITATOR_URL: stand.url, X402_PAY_TO: PAY_TO, X402_NETWORK: NETWORK_V1, X402_ASSET: ASSET };
}
