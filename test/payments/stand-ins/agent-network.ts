/**
 * A stand-in for the agent payment network (KYAPay, Skyfire-style): an ES256 signing key with its
 * JWK Set served at /.well-known/jwks.json, a token minting helper, and the charge API
 * `POST /api/v1/tokens/charge` (`skyfire-api-key` header, `{ token, chargeAmount }` →
 * `{ amountCharged, remainingBalance }`; 401 for a bad key or token, 402 above the balance).
 */
import { randomUUID } from "node:crypto";
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, type JWTPayload, jwtVerify, SignJWT } from "jose";
import { type StandInServer, startStandIn } from "./http-stand-in.ts";

export const NETWORK_ISSUER = "https://network.example";
export const SELLER_ID = "0b5f0e8e-4f3c-4a53-9c52-seller000001";
export const SERVICE_ID = "5d9f7a4e-6c1b-4c7e-8f00-service00001";
export const NETWORK_API_KEY = "network-api-key-for-tests";

export interface Charge {
  jti: string;
  micros: number;
}

export interface AgentNetworkStandIn extends StandInServer {
  jwks: { keys: JWK[] };
  charges: Charge[];
  /**
   * Next charges answer with this status instead (402 refused, 500 broken), hang when "hang"
   * (nothing charged), or charge and then never answer when "lost" (the answer lost on the way).
   */
  mode: "ok" | 402 | 500 | "hang" | "lost";
  mint(options?: MintOptions): Promise<string>;
  /** A token signed by a key the JWKS does not hold. */
  mintForeign(options?: MintOptions): Promise<string>;
}

export interface MintOptions {
  typ?: string;
  kid?: string;
  claims?: Record<string, unknown>;
  /** Claim names to drop from the defaults. */
  omit?: string[];
  /** Value in micro-dollars (sets value/val and amount/amt). */
  valueMicros?: number;
  /** Use the draft's names (tsi, amt, val) instead of the live docs' (ssi, amount, value). */
  draftNames?: boolean;
  /** Seconds from now (the test clock) until exp. */
  expiresIn?: number;
  now?: number;
}

export interface AgentNetworkOptions {
  /** Each charge answers after a delay drawn uniformly from [min, max] ms, as a real network round trip would. */
  chargeLatencyMs?: [number, number];
}

export async function startAgentNetwork(options: AgentNetworkOptions = {}): Promise<AgentNetworkStandIn> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  const foreign = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: "network-key-1", alg: "ES256", use: "sig" };
  const jwks = { keys: [jwk] };
  const localSet = createLocalJWKSet(jwks);
  const balances = new Map<string, number>();
  const charges: Charge[] = [];

  const server = await startStandIn(async (req) => {
    if (req.method === "GET" && req.path === "/.well-known/jwks.json") return { status: 200, body: jwks };
    if (req.method !== "POST" || req.path !== "/api/v1/tokens/charge") return { status: 404, body: { message: "not found" } };
    if (options.chargeLatencyMs) {
      const [min, max] = options.chargeLatencyMs;
      await new Promise((r) => setTimeout(r, min + Math.random() * (max - min)));
    }
    if (stand.mode === "hang") return null;
    if (typeof stand.mode === "number") return { status: stand.mode, body: { message: "refused by test" } };
    if (req.headers["skyfire-api-key"] !== NETWORK_API_KEY) return { status: 401, body: { message: "bad api key" } };
    const { token, chargeAmount } = JSON.parse(req.body) as { token: string; chargeAmount: string };
    let payload: JWTPayload;
    try {
      // The network checks its own signature; the stand-in ignores time (the service runs on a test clock).
      ({ payload } = await jwtVerify(token, localSet, {
        currentDate: new Date((JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { iat: number }).iat * 1000),
      }));
    } catch {
      return { status: 401, body: { message: "invalid token" } };
    }
    const jti = payload.jti!;
    const micros = Math.round(Number(chargeAmount) * 1_000_000);
    const initial = Number((payload as Record<string, unknown>).value ?? (payload as Record<string, unknown>).val);
    const remaining = balances.get(jti) ?? initial;
    if (!(micros > 0) || micros > remaining) return { status: 402, body: { message: "amount exceeds remaining balance" } };
    balances.set(jti, remaining - micros);
    charges.push({ jti, micros });
    if (stand.mode === "lost") return null;
    return { status: 200, body: { amountCharged: (micros / 1e6).toFixed(6), remainingBalance: ((remaining - micros) / 1e6).toFixed(6) } };
  });

  const mintWith = async (key: CryptoKey, options: MintOptions = {}) => {
    const now = Math.floor((options.now ?? Date.now()) / 1000);
    const value = options.valueMicros ?? 10_000;
    const amount = (value / 1e6).toFixed(6);
    const base: Record<string, unknown> = options.draftNames
      ? { tsi: SERVICE_ID, amt: amount, val: String(value), tps: "pay_per_use", tpr: "0.002" }
      : { ssi: SERVICE_ID, amount, value: String(value), sps: "PAY_PER_USE", spr: "0.002", ver: 1 };
    const claims: Record<string, unknown> = {
      ...base,
      cur: "USD",
      stp: "COIN",
      env: "production",
      iat: now - 5,
      exp: now + (options.expiresIn ?? 3600),
      jti: randomUUID(),
      sub: randomUUID(),
      aud: SELLER_ID,
      iss: NETWORK_ISSUER,
      ...options.claims,
    };
    for (const name of options.omit ?? []) delete claims[name];
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", typ: options.typ ?? "kya-pay+jwt", kid: options.kid ?? "network-key-1" })
      .sign(key);
  };

  const stand: AgentNetworkStandIn = {
    ...server,
    jwks,
    charges,
    mode: "ok",
    mint: (options) => mintWith(privateKey, options),
    mintForeign: (options) => mintWith(foreign.privateKey, options),
  };
  return stand;
}

/** The service's environment for this stand-in. */
export function agentNetworkEnv(stand: AgentNetworkStandIn, useUrl = false): Record<string, string> {
  return {
    ...(useUrl ? { PAY_NETWORK_JWKS_URL: `${stand.url}/.well-known/jwks.json` } : { PAY_NETWORK_JWKS: JSON.stringify(stand.jwks) }),
    PAY_NETWORK_ISSUER: NETWORK_ISSUER,
    PAY_NETWORK_SELLER_ID: SELLER_ID,
    PAY_NETWORK_SERVICE_ID: SERVICE_ID,
    PAY_NETWORK_API_URL: stand.url,
    PAY_NETWORK_API_KEY: NETWORK_API_KEY,
  };
}
