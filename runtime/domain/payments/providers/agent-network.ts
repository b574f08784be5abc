/**
 * The agent payment network (KYAPay tokens in `pay-network-pay-id`): local verification with
 * `jose` against a pinned JWK Set, and charging through the network's charge API.
 *
 * Verification follows the KYAPay draft and the network's seller checklist: ES256 only, `kid`
 * required, pinned issuer, audience = our seller id, `iat`/`exp` with 60 s tolerance, `jti` a
 * UUID, `env` present and in the allowed set, service id (`tsi` or the older `ssi`) = ours, and for pay tokens
 * `cur` = USD with a positive value (`val`/`value` in micro-dollars, else `amt`/`amount`).
 * Both claim-name generations are accepted. Tokens are never logged.
 */
import { createHash } from "node:crypto";
import { createLocalJWKSet, createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from "jose";
import { boundedCache } from "../../../shared/cache.ts";
import { apiError } from "../../../shared/errors.ts";
import type { AgentNetworkConfig } from "../methods/agent-network/agent-network-env.ts";
import { parseUsdDecimal, toUsdDecimal } from "../purchases/usd-decimal.ts";
import { postJson } from "./fetch-json.ts";

export type PayTokenType = "kya" | "pay" | "kya-pay";

/** What a verified token grants; money in micro-dollars, times in epoch ms. */
export interface VerifiedPayToken {
  jti: string;
  sub: string;
  type: PayTokenType;
  /** The token's value (0 for kya tokens). */
  valueMicros: number;
  /** `mnr`: the most requests the buyer allows, or null. */
  maxRequests: number | null;
  expiresAt: number;
}

export interface ChargeResult {
  chargedMicros: number;
  remainingMicros: number | null;
}

export interface AgentNetworkProvider {
  readonly name: "agent_network";
  /** Verifies signature and claims (cached per token until it expires); throws a 402 problem. */
  verify(token: string, now: number): Promise<VerifiedPayToken>;
  /** Charges the token through the network; 402 when refused, 502 when the network fails. */
  charge(token: string, amountMicros: number): Promise<ChargeResult>;
}

type NetworkConfig = AgentNetworkConfig;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TYP_TO_TYPE: Record<string, PayTokenType> = {
  "kya+jwt": "kya",
  "pay+jwt": "pay",
  "kya-pay+jwt": "kya-pay",
  "kya+pay+jwt": "kya-pay",
};
const CLOCK_TOLERANCE_S = 60;
/** Verified tokens remembered (by SHA-256 of the token, never the token itself). */
const CACHE_ENTRIES = 2048;

export function createAgentNetworkProvider(config: NetworkConfig, options: { timeoutMs: number }): AgentNetworkProvider {
  const keySet: JWTVerifyGetKey = config.jwks
    ? createLocalJWKSet(config.jwks as Parameters<typeof createLocalJWKSet>[0])
    : createRemoteJWKSet(new URL(config.jwksUrl!), { timeoutDuration: options.timeoutMs, cooldownDuration: 30_000 });
  const cache = boundedCache<string, VerifiedPayToken>(CACHE_ENTRIES);

  return {
    name: "agent_network",
    async verify(token, now) {
      const digest = createHash("sha256").update(token).digest("base64url");
      let verified = cache.get(digest);
      if (!verified) {
        verified = await _verify(token, keySet, config, now);
        cache.set(digest, verified);
      }
      // The cache skips the signature, never the clock.
      if (verified.expiresAt + CLOCK_TOLERANCE_S * 1000 <= now) throw apiError("payment_token_expired", { extra: { unlock: howToPay() } });
      return verified;
    },
    async charge(token, amountMicros) {
      const reply = await postJson(
        `${config.apiUrl}/api/v1/tokens/charge`,
        { token, chargeAmount: toUsdDecimal(amountMicros) },
        {
          headers: { "skyfire-api-key": config.apiKey },
          timeoutMs: options.timeoutMs,
          provider: "The agent payment network",
        },
      );
      if (reply.status >= 500)
        throw apiError("payment_gateway_error", { detail: `The agent payment network answered ${reply.status}; nothing was issued.` });
      if (reply.status < 200 || reply.status >= 300) {
        throw apiError("payment_failed", {
          detail: `The agent payment network refused the charge (${reply.status}).`,
          extra: { unlock: howToPay() },
        });
      }
      const body = (reply.body ?? {}) as { amountCharged?: unknown; remainingBalance?: unknown };
      const charged = parseUsdDecimal(typeof body.amountCharged === "number" ? String(body.amountCharged) : body.amountCharged);
      if (charged === null || charged < amountMicros) {
        throw apiError("payment_gateway_error", {
          detail: "The agent payment network's charge reply did not confirm the amount; nothing was issued.",
        });
      }
      const remaining = parseUsdDecimal(typeof body.remainingBalance === "number" ? String(body.remainingBalance) : body.remainingBalance);
      return { chargedMicros: charged, remainingMicros: remaining };
    },
  };
}

/** How a caller gets a usable token: carried by every 402 of this provider. */
export function howToPay() {
  return {
    per_use: { header: "pay-network-pay-id", token_types: ["pay", "kya-pay"], currency: "USD" },
    membership: { method: "POST", path: "/api/checkout" },
    trial: { method: "POST", path: "/api/trial" },
  };
}

// --- Internal helpers ---

async function _verify(token: string, keySet: JWTVerifyGetKey, config: NetworkConfig, now: number): Promise<VerifiedPayToken> {
  const invalid = (detail: string) => apiError("payment_token_invalid", { detail, extra: { unlock: howToPay() } });
  if (token.length > 16 * 1024) throw invalid("The token is too long.");
  let payload: JWTPayload;
  let header: { typ?: string; kid?: string };
  try {
    ({ payload, protectedHeader: header } = await jwtVerify(token, keySet, {
      algorithms: ["ES256"],
      issuer: config.issuer,
      audience: config.sellerId,
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: new Date(now),
      requiredClaims: ["exp", "iat", "jti", "sub"],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw apiError("payment_token_expired", { extra: { unlock: howToPay() } });
    throw invalid(error instanceof joseErrors.JOSEError ? `The token failed verification (${error.code}).` : "The token is not a JWT.");
  }
  if (!header.kid) throw invalid("The token header has no kid.");
  const type = TYP_TO_TYPE[(header.typ ?? "").toLowerCase()];
  if (!type) throw invalid(`The token type "${String(header.typ).slice(0, 40)}" is not a KYAPay type.`);
  const claims = payload as Record<string, unknown>;
  if (typeof payload.iat !== "number" || payload.iat * 1000 > now + CLOCK_TOLERANCE_S * 1000)
    throw invalid("The token was issued in the future.");
  if (typeof payload.jti !== "string" || !UUID_RE.test(payload.jti)) throw invalid("The token's jti is not a UUID.");
  // A token that names no environment could be a sandbox token: only a named, allowed one passes.
  if (typeof claims.env !== "string")
    throw invalid("The token has no env claim; only tokens for an allowed environment (production) are accepted.");
  if (!config.environments.includes(claims.env))
    throw invalid(`Tokens for environment "${claims.env.slice(0, 20)}" are not accepted here.`);
  if ((claims.tsi ?? claims.ssi) !== config.serviceId) throw invalid("The token is not for this service (tsi/ssi).");
  const base = { jti: payload.jti, sub: String(payload.sub), type, expiresAt: payload.exp! * 1000 };
  if (type === "kya") return { ...base, valueMicros: 0, maxRequests: null };
  if (claims.cur !== "USD") throw invalid("Only USD tokens are accepted.");
  const rawValue = claims.val ?? claims.value;
  const value = typeof rawValue === "string" && /^\d{1,15}$/.test(rawValue) ? Number(rawValue) : null;
  const amount = parseUsdDecimal(claims.amt ?? claims.amount);
  const valueMicros = value ?? amount;
  if (valueMicros === null || valueMicros <= 0 || (amount !== null && amount <= 0))
    throw invalid("The token carries no positive value (val/value, amt/amount).");
  const mnr = claims.mnr === undefined ? null : Number(claims.mnr);
  if (mnr !== null && (!Number.isInteger(mnr) || mnr < 1)) throw invalid("The token's mnr is not a positive integer.");
  return { ...base, valueMicros, maxRequests: mnr };
}
