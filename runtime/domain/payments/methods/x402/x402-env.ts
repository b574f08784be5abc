/**
 * x402's environment block (`X402_*`, and Coinbase's `CDP_API_KEY_*` for its hosted facilitator):
 * where to pay and on which network (CAIP-2 or a v1 name, resolved by the x402 provider). The asset
 * and its EIP-712 domain come from `@x402/evm`'s table for the network unless `asset` overrides
 * them (a 6-decimal USD stablecoin with EIP-3009).
 */
import type { MethodEnvBlock } from "../method-env.ts";

export interface X402Config {
  /** Unset with CDP keys: Coinbase's hosted facilitator. */
  facilitatorUrl: string | undefined;
  payTo: string;
  network: string;
  asset: { address: string; name: string | undefined; version: string | undefined } | undefined;
  /** X402_FACILITATOR_AUTHORIZATION: a static Authorization header sent on every facilitator call. */
  facilitatorAuthorization: string | undefined;
  /** CDP_API_KEY_ID / CDP_API_KEY_SECRET: per-request JWTs for Coinbase's hosted facilitator. */
  cdp: { keyId: string; keySecret: string } | undefined;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export const x402Env: MethodEnvBlock<X402Config> = {
  feature: "x402 payments",
  // Coinbase's hosted facilitator is the default where its keys are set; the asset defaults to the network's own token.
  required: [["X402_FACILITATOR_URL", "CDP_API_KEY_ID"], ["X402_PAY_TO"], ["X402_NETWORK"]],
  optional: ["X402_ASSET", "X402_ASSET_NAME", "X402_ASSET_VERSION", "X402_FACILITATOR_AUTHORIZATION", "CDP_API_KEY_SECRET"],
  parse(read) {
    const keyId = read.text("CDP_API_KEY_ID");
    const keySecret = read.text("CDP_API_KEY_SECRET");
    if (Boolean(keyId) !== Boolean(keySecret))
      read.refuse("CDP_API_KEY_ID and CDP_API_KEY_SECRET are set together (Coinbase's hosted x402 facilitator) or not at all");
    const cdp = keyId && keySecret ? { keyId, keySecret } : undefined;
    const facilitatorUrl = read.httpUrl("X402_FACILITATOR_URL")?.href.replace(/\/+$/, "");
    const payTo = read.text("X402_PAY_TO");
    const network = read.text("X402_NETWORK");
    if (!payTo || !network || (!facilitatorUrl && !cdp)) return undefined;
    if (!EVM_ADDRESS.test(payTo)) read.refuse("X402_PAY_TO must be an EVM address (0x and 40 hex digits)");
    const address = read.text("X402_ASSET");
    const asset = address ? { address, name: read.text("X402_ASSET_NAME"), version: read.text("X402_ASSET_VERSION") } : undefined;
    if (asset && !EVM_ADDRESS.test(asset.address)) read.refuse("X402_ASSET must be a token contract address (0x and 40 hex digits)");
    return {
      facilitatorUrl,
      payTo,
      network: network.trim(),
      asset,
      facilitatorAuthorization: read.text("X402_FACILITATOR_AUTHORIZATION"),
      cdp,
    };
  },
};
