/**
 * The absolute base of URLs we hand to others (Stripe's success URL, x402's `resource`): never
 * built from the request's Host header, which any client sets. PUBLIC_BASE_URL when configured,
 * else the address the server listens on (right for a direct deployment; behind a proxy the
 * operator must set PUBLIC_BASE_URL, and start warns when a payment method needs it).
 */
import type { AppDeps } from "../deps.ts";

export function publicBaseUrl(deps: Pick<AppDeps, "config" | "address">): string {
  return deps.config.publicBaseUrl ?? deps.address.url;
}
