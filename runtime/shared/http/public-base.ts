/**
 * The absolute base of URLs we hand to others (Stripe's success URL, x402's `resource`): never
 * built from the request's Host header, which any client sets. PUBLIC_BASE_URL when configured,
 * else the address the server listens on (right for a direct deployment; behind a proxy the
 * operator must set PUBLIC_BASE_URL, and start warns when a payment method needs it).
 */
import type { ListenAddress } from "./listen-address.ts";

/** What the base is read from: a narrow view of the app's deps (PUBLIC_BASE_URL and the listening address). */
interface PublicBaseDeps {
  readonly config: { readonly publicBaseUrl: string | undefined };
  readonly address: ListenAddress;
}

export function publicBaseUrl(deps: PublicBaseDeps): string {
  return deps.config.publicBaseUrl ?? deps.address.url;
}
