/**
 * agent_network's environment block (`PAY_NETWORK_*`): the network's pinned JWKS (a URL, or the
 * set inline), our identity in its tokens (issuer, seller id, service id), its charge API, and the
 * token environments accepted.
 */
import type { MethodEnvBlock } from "../method-env.ts";

export interface AgentNetworkConfig {
  jwksUrl: string | undefined;
  /** Inline JWK Set (PAY_NETWORK_JWKS), for tests and air-gapped deployments; wins over the URL. */
  jwks: { keys: Record<string, unknown>[] } | undefined;
  issuer: string;
  sellerId: string;
  serviceId: string;
  apiUrl: string;
  apiKey: string;
  /** `env` claim values accepted (production; add sandbox only for test deployments). */
  environments: string[];
}

export const agentNetworkEnv: MethodEnvBlock<AgentNetworkConfig> = {
  feature: "agent_network payments (KYAPay)",
  required: [
    ["PAY_NETWORK_JWKS_URL", "PAY_NETWORK_JWKS"],
    ["PAY_NETWORK_ISSUER"],
    ["PAY_NETWORK_SELLER_ID"],
    ["PAY_NETWORK_SERVICE_ID"],
    ["PAY_NETWORK_API_URL"],
    ["PAY_NETWORK_API_KEY"],
  ],
  optional: ["PAY_NETWORK_ENVIRONMENTS"],
  parse(read) {
    let jwks: { keys: Record<string, unknown>[] } | undefined;
    const inline = read.text("PAY_NETWORK_JWKS");
    if (inline) {
      try {
        jwks = JSON.parse(inline) as { keys: Record<string, unknown>[] };
      } catch {
        read.refuse("PAY_NETWORK_JWKS must be a JSON Web Key Set");
      }
      if (!jwks || !Array.isArray(jwks.keys)) read.refuse("PAY_NETWORK_JWKS must be a JSON Web Key Set ({ keys: [...] })");
    }
    const issuer = read.text("PAY_NETWORK_ISSUER");
    const sellerId = read.text("PAY_NETWORK_SELLER_ID");
    const serviceId = read.text("PAY_NETWORK_SERVICE_ID");
    const apiKey = read.text("PAY_NETWORK_API_KEY");
    if (!issuer || !sellerId || !serviceId || !read.text("PAY_NETWORK_API_URL") || !apiKey) return undefined;
    if (!jwks && !read.text("PAY_NETWORK_JWKS_URL")) return undefined;
    return {
      jwksUrl: read.httpUrl("PAY_NETWORK_JWKS_URL")?.href,
      jwks,
      issuer,
      sellerId,
      serviceId,
      apiUrl: read.httpUrl("PAY_NETWORK_API_URL")!.href.replace(/\/+$/, ""),
      apiKey,
      environments: (read.text("PAY_NETWORK_ENVIRONMENTS") ?? "production")
        .split(",")
        .map((e) => e.trim())
        .filter(Boolean),
    };
  },
};
