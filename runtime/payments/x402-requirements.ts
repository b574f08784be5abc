/**
 * x402 wire shapes for checkout: our payment requirements in both protocol versions (v1 in the
 * 402 body, v2 base64 in `PAYMENT-REQUIRED`), and the strict decoding of a client's `X-PAYMENT`
 * (v1) or `PAYMENT-SIGNATURE` (v2) header. Amounts are atomic units of a 6-decimal USD stablecoin,
 * so they equal micro-dollars.
 */
import { apiError } from "../errors.ts";

export interface X402Terms {
  payTo: string;
  network: string;
  asset: string;
}

export interface ExactAuthorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

export interface DecodedPayment {
  version: 1 | 2;
  /** The payload exactly as the client sent it (forwarded to the facilitator). */
  payload: Record<string, unknown>;
  scheme: string;
  network: string;
  /** v2 only: the requirement the client says it accepted. */
  accepted: Record<string, unknown> | null;
  authorization: ExactAuthorization;
}

/** Known EVM networks: v1 names ↔ CAIP-2 ids. Either form may be configured. */
const NETWORKS = new Map<string, string>([
  ["base", "eip155:8453"],
  ["base-sepolia", "eip155:84532"],
  ["avalanche", "eip155:43114"],
  ["avalanche-fuji", "eip155:43113"],
  ["polygon", "eip155:137"],
  ["polygon-amoy", "eip155:80002"],
]);
const MAX_HEADER_CHARS = 8 * 1024;
const MAX_TIMEOUT_SECONDS = 300;

export function networkNames(network: string): { v1: string; v2: string } {
  const v2 = NETWORKS.get(network);
  if (v2 !== undefined) return { v1: network, v2 };
  const v1 = [...NETWORKS].find(([, id]) => id === network)?.[0];
  return { v1: v1 ?? network, v2: network };
}

export function buildRequirements(terms: X402Terms, amountMicros: number, resource: { url: string; description: string }) {
  const names = networkNames(terms.network);
  const common = { scheme: "exact", asset: terms.asset, payTo: terms.payTo, maxTimeoutSeconds: MAX_TIMEOUT_SECONDS, extra: { name: "USDC", version: "2" } };
  const v1 = { ...common, network: names.v1, maxAmountRequired: String(amountMicros), resource: resource.url, description: resource.description, mimeType: "application/json", outputSchema: null };
  const v2 = { ...common, network: names.v2, amount: String(amountMicros) };
  const paymentRequired = { x402Version: 2, error: "payment required", resource: { url: resource.url, description: resource.description, mimeType: "application/json" }, accepts: [v2] };
  return { v1, v2, paymentRequired };
}

export type Requirements = ReturnType<typeof buildRequirements>;

export function encodeHeader(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64");
}

/** Decodes and shape-checks a payment header; anything malformed is 400 `payment_malformed`. */
export function decodePaymentHeader(raw: string, version: 1 | 2): DecodedPayment {
  const malformed = (detail: string) => apiError("payment_malformed", { detail });
  if (raw.length > MAX_HEADER_CHARS) throw malformed(`The payment header is longer than ${MAX_HEADER_CHARS} characters.`);
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw.trim())) throw malformed("The payment header is not base64.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw.trim(), "base64").toString("utf8"));
  } catch {
    throw malformed("The payment header does not decode to JSON.");
  }
  if (!_isObject(parsed)) throw malformed("The payment header is not a JSON object.");
  if (parsed.x402Version !== version) throw malformed(`This header carries x402Version ${version}.`);
  const payload = parsed.payload;
  if (!_isObject(payload) || typeof payload.signature !== "string" || !_isObject(payload.authorization)) throw malformed("payload.signature and payload.authorization are required (scheme exact).");
  const auth = payload.authorization;
  for (const field of ["from", "to", "value", "validAfter", "validBefore", "nonce"] as const) {
    if (typeof auth[field] !== "string" || (auth[field] as string).length > 200) throw malformed(`payload.authorization.${field} must be a string.`);
  }
  if (!/^\d{1,40}$/.test(auth.value as string) || !/^\d{1,20}$/.test(auth.validBefore as string) || !/^\d{1,20}$/.test(auth.validAfter as string)) {
    throw malformed("authorization value, validAfter and validBefore must be decimal integer strings.");
  }
  const accepted = version === 2 ? parsed.accepted : null;
  if (version === 2 && !_isObject(accepted)) throw malformed("accepted is required in x402 v2.");
  const scheme = version === 1 ? parsed.scheme : (accepted as Record<string, unknown>).scheme;
  const network = version === 1 ? parsed.network : (accepted as Record<string, unknown>).network;
  if (typeof scheme !== "string" || typeof network !== "string") throw malformed("scheme and network are required.");
  return { version, payload: parsed, scheme, network, accepted: accepted as Record<string, unknown> | null, authorization: auth as unknown as ExactAuthorization };
}

/** Why a decoded payment cannot pay our requirements, or null when it matches them. */
export function mismatchReason(payment: DecodedPayment, requirements: Requirements, now: number): string | null {
  const ours = requirements.v2;
  const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();
  if (payment.scheme !== "exact") return "invalid_scheme";
  if (payment.network !== (payment.version === 1 ? requirements.v1.network : ours.network)) return "invalid_network";
  if (payment.accepted) {
    if (payment.accepted.amount !== ours.amount) return "invalid_exact_evm_payload_amount_mismatch";
    if (!same(payment.accepted.asset, ours.asset)) return "invalid_exact_evm_payload_asset_mismatch";
    if (!same(payment.accepted.payTo, ours.payTo)) return "invalid_exact_evm_payload_recipient_mismatch";
  }
  if (!same(payment.authorization.to, ours.payTo)) return "invalid_exact_evm_payload_recipient_mismatch";
  if (BigInt(payment.authorization.value) < BigInt(ours.amount)) return "invalid_exact_evm_payload_authorization_value";
  if (Number(payment.authorization.validBefore) * 1000 <= now) return "invalid_exact_evm_payload_authorization_valid_before";
  return null;
}

// --- Internal helpers ---

function _isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
