/**
 * x402 wire shapes for checkout. The v2 requirement comes from `@x402/core`'s resource server and
 * `@x402/evm`'s exact scheme (asset, amount in atomic units, the token's EIP-712 domain); the v1
 * entry of the 402 body is the same terms in v1's field names. Payment headers are decoded with
 * `@x402/core/http`, then checked here for what our purchase journal keys on (payer, nonce,
 * signature, value): the library's types are not validators, and we hold a claim on these fields
 * before any outside call.
 */
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements, SettleResponse } from "@x402/core/types";
import { apiError } from "../../../../shared/errors.ts";

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

/** What a 402 carries: the v2 requirement, its v1 twin for the body, and the v2 header's object. */
export interface Requirements {
  v2: PaymentRequirements;
  v1: PaymentRequirementsV1;
  paymentRequired: PaymentRequired;
}

export interface PaymentRequirementsV1 {
  scheme: string;
  network: string;
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  outputSchema: Record<string, unknown> | null;
  payTo: string;
  maxTimeoutSeconds: number;
  asset: string;
  extra: Record<string, unknown>;
}

const MAX_HEADER_CHARS = 8 * 1024;

/** What a 402 says of the resource paid for; discovery (the Bazaar) reads `extensions` and `outputSchema`. */
export interface ResourceDescription {
  url: string;
  description: string;
  extensions?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** The v1 body entry for a v2 requirement: same terms, v1 names (`maxAmountRequired`, `resource`). */
export function requirementsFor(v2: PaymentRequirements, networkV1: string, resource: ResourceDescription): Requirements {
  const v1: PaymentRequirementsV1 = {
    scheme: v2.scheme,
    network: networkV1,
    maxAmountRequired: v2.amount,
    resource: resource.url,
    description: resource.description,
    mimeType: "application/json",
    outputSchema: resource.outputSchema ?? null,
    payTo: v2.payTo,
    maxTimeoutSeconds: v2.maxTimeoutSeconds,
    asset: v2.asset,
    extra: v2.extra,
  };
  const paymentRequired: PaymentRequired = {
    x402Version: 2,
    error: "payment required",
    resource: { url: resource.url, description: resource.description, mimeType: "application/json" },
    accepts: [v2],
    ...(resource.extensions ? { extensions: resource.extensions } : {}),
  };
  return { v2, v1, paymentRequired };
}

export function encodeRequiredHeader(requirements: Requirements, error: string): string {
  return encodePaymentRequiredHeader({ ...requirements.paymentRequired, error });
}

export function encodeResponseHeader(receipt: SettleResponse): string {
  return encodePaymentResponseHeader(receipt);
}

/** Decodes and shape-checks a payment header; anything malformed is 402 `payment_malformed`. */
export function decodePaymentHeader(raw: string, version: 1 | 2): DecodedPayment {
  const malformed = (detail: string) => apiError("payment_malformed", { detail });
  if (raw.length > MAX_HEADER_CHARS) throw malformed(`The payment header is longer than ${MAX_HEADER_CHARS} characters.`);
  let parsed: unknown;
  try {
    parsed = decodePaymentSignatureHeader(raw.trim());
  } catch {
    throw malformed("The payment header is not base64-encoded JSON.");
  }
  if (!_isObject(parsed)) throw malformed("The payment header is not a JSON object.");
  if (parsed.x402Version !== version) throw malformed(`This header carries x402Version ${version}.`);
  const payload = parsed.payload;
  if (!_isObject(payload) || typeof payload.signature !== "string" || !_isObject(payload.authorization))
    throw malformed("payload.signature and payload.authorization are required (scheme exact).");
  const auth = payload.authorization;
  for (const field of ["from", "to", "value", "validAfter", "validBefore", "nonce"] as const) {
    if (typeof auth[field] !== "string" || (auth[field] as string).length > 200)
      throw malformed(`payload.authorization.${field} must be a string.`);
  }
  if (
    !/^\d{1,40}$/.test(auth.value as string) ||
    !/^\d{1,20}$/.test(auth.validBefore as string) ||
    !/^\d{1,20}$/.test(auth.validAfter as string)
  ) {
    throw malformed("authorization value, validAfter and validBefore must be decimal integer strings.");
  }
  const accepted = version === 2 ? parsed.accepted : null;
  if (version === 2 && !_isObject(accepted)) throw malformed("accepted is required in x402 v2.");
  const scheme = version === 1 ? parsed.scheme : (accepted as Record<string, unknown>).scheme;
  const network = version === 1 ? parsed.network : (accepted as Record<string, unknown>).network;
  if (typeof scheme !== "string" || typeof network !== "string") throw malformed("scheme and network are required.");
  return {
    version,
    payload: parsed,
    scheme,
    network,
    accepted: accepted as Record<string, unknown> | null,
    authorization: auth as unknown as ExactAuthorization,
  };
}

/**
 * Why a decoded payment cannot pay our requirements, or null when it matches them. `acceptedMatches`
 * is the resource server's own v2 comparison of the echoed requirement. The authorized value must
 * EQUAL the price: "exact" settles the whole authorized value, so a larger authorization would
 * take more than the receipt says.
 */
export function mismatchReason(payment: DecodedPayment, requirements: Requirements, acceptedMatches: boolean): string | null {
  const ours = requirements.v2;
  const same = (a: unknown, b: string) => typeof a === "string" && a.toLowerCase() === b.toLowerCase();
  if (payment.scheme !== "exact") return "invalid_scheme";
  if (payment.network !== (payment.version === 1 ? requirements.v1.network : ours.network)) return "invalid_network";
  if (payment.version === 2 && !acceptedMatches) return "invalid_exact_evm_payload_accepted_mismatch";
  if (!same(payment.authorization.to, ours.payTo)) return "invalid_exact_evm_payload_recipient_mismatch";
  if (BigInt(payment.authorization.value) !== BigInt(ours.amount)) return "invalid_exact_evm_payload_authorization_value_mismatch";
  return null;
}

// --- Internal helpers ---

function _isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
