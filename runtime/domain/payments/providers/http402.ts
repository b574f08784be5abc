/**
 * x402 through the protocol's own server code: `@x402/core`'s resource server builds our payment
 * requirements with `@x402/evm`'s exact scheme (whose table carries each network's asset and the
 * token's EIP-712 domain, e.g. "USD Coin" on Base mainnet and "USDC" on Base Sepolia) and learns
 * from the facilitator's `/supported` what it can settle; `@x402/core`'s HTTP facilitator client
 * calls `/verify` and `/settle`, with per-request auth headers when configured (a static header, or
 * Coinbase's hosted facilitator through `@coinbase/x402`). The requirements sent are always the
 * ones we built, never the client's copy; facilitator answers are shape-checked by the library.
 */
import { createFacilitatorConfig } from "@coinbase/x402";
import { type FacilitatorConfig, HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { findDefaultAsset } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { EVM_NETWORK_CHAIN_ID_MAP } from "@x402/evm/v1";
import { apiError, ConfigError } from "../../../shared/errors.ts";
import type { X402Config } from "../methods/x402/x402-env.ts";
import { type DecodedPayment, type Requirements, type ResourceDescription, requirementsFor } from "../methods/x402/x402-requirements.ts";

export interface VerifyReply {
  isValid: boolean;
  invalidReason: string | null;
  payer: string | null;
}

export interface SettleReply {
  success: boolean;
  errorReason: string | null;
  payer: string | null;
  transaction: string;
  network: string;
}

export interface X402Provider {
  readonly name: "http402";
  readonly network: { v2: string; v1: string; testnet: boolean };
  readonly facilitatorUrl: string;
  readonly payTo: string;
  /** The token paid in: the override, else the scheme's default once `ready()` has looked it up. */
  readonly asset: string | null;
  /**
   * Loads the facilitator's `/supported` (once; retried on the next call after a failure) and checks
   * it settles our network in both protocol versions; ConfigError when it answers and cannot.
   */
  ready(): Promise<void>;
  requirements(amountMicros: number, resource: ResourceDescription): Promise<Requirements>;
  /** The resource server's own comparison of a v2 payment's echoed requirement with ours. */
  acceptedMatches(payment: DecodedPayment, requirements: Requirements): boolean;
  verify(payment: DecodedPayment, requirements: Requirements): Promise<VerifyReply>;
  settle(payment: DecodedPayment, requirements: Requirements): Promise<SettleReply>;
}

const MAX_TIMEOUT_SECONDS = 300;
const TESTNET_RE = /sepolia|fuji|amoy|testnet|devnet/;

export function createX402Provider(config: X402Config, options: { timeoutMs: number }): X402Provider {
  const network = resolveNetwork(config.network);
  const facilitatorConfig: FacilitatorConfig = { url: config.facilitatorUrl, timeoutMs: options.timeoutMs };
  if (config.cdp) {
    const cdp = createFacilitatorConfig(config.cdp.keyId, config.cdp.keySecret);
    facilitatorConfig.url = config.facilitatorUrl ?? cdp.url;
    facilitatorConfig.createAuthHeaders = cdp.createAuthHeaders;
  } else if (config.facilitatorAuthorization) {
    const authorization = { Authorization: config.facilitatorAuthorization };
    facilitatorConfig.createAuthHeaders = async () => ({ verify: authorization, settle: authorization, supported: authorization });
  }
  const facilitator = new HTTPFacilitatorClient(facilitatorConfig);
  const scheme = new ExactEvmScheme();
  const server = new x402ResourceServer(facilitator).register(network.v2 as Network, scheme);
  // X402_ASSET alone names the network's default token (checked in `ready`); with a domain it overrides it.
  const overridden = Boolean(config.asset?.name || config.asset?.version);
  if (overridden) _refuseOtherDomain(config.asset!, network.v2);
  const price = _priceOf(config, overridden);
  let loaded: Promise<void> | null = null;

  const ready = () =>
    (loaded ??= (async () => {
      if (!overridden) {
        // The scheme's own default-asset lookup: no stablecoin in its table, or one it pays otherwise than by EIP-3009.
        const probe = await scheme.parsePrice("$1", network.v2 as Network).catch(() => null);
        if (!probe)
          throw new ConfigError(
            `@x402/evm has no default stablecoin for ${network.v2}: set X402_ASSET, X402_ASSET_NAME and X402_ASSET_VERSION`,
          );
        if (probe.extra?.assetTransferMethod)
          throw new ConfigError(
            `the default stablecoin on ${network.v2} is paid through ${String(probe.extra.assetTransferMethod)}, not EIP-3009: set X402_ASSET to an EIP-3009 token`,
          );
        if (config.asset && config.asset.address.toLowerCase() !== probe.asset.toLowerCase()) {
          throw new ConfigError(
            `X402_ASSET ${config.asset.address} is not the default stablecoin on ${network.v2} (${probe.asset}): give its EIP-712 domain with X402_ASSET_NAME and X402_ASSET_VERSION`,
          );
        }
        provider.asset = probe.asset;
      }
      try {
        await server.initialize();
      } catch (error) {
        throw new FacilitatorUnreachable(
          `the x402 facilitator at ${facilitatorConfig.url} did not list what it supports (${_message(error)})`,
        );
      }
      for (const [version, name] of [
        [2, network.v2],
        [1, network.v1],
      ] as const) {
        if (!server.getSupportedKind(version, name as Network, "exact")) {
          throw new ConfigError(
            `the x402 facilitator at ${facilitatorConfig.url} cannot settle "exact" payments on ${name} (x402 v${version}); configure X402_FACILITATOR_URL (or CDP_API_KEY_ID and CDP_API_KEY_SECRET) for a facilitator that settles on X402_NETWORK`,
          );
        }
      }
    })().catch((error: unknown) => {
      loaded = null;
      throw error;
    }));

  /** Facilitator calls: an answer the library cannot read, a timeout or no answer is a 502. */
  const call = async <T>(path: string, run: () => Promise<T>, refusal: (body: Record<string, unknown>) => T): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      // A 4xx answer that still speaks the protocol (VerifyError / SettleError) is a refusal; a 5xx
      // is the facilitator failing, whatever its body says: the outcome is unknown.
      const body = (error as { invalidReason?: unknown; errorReason?: unknown; statusCode?: unknown }) ?? {};
      const failed = typeof body.statusCode === "number" && body.statusCode >= 500;
      if (!failed && (typeof body.invalidReason === "string" || typeof body.errorReason === "string"))
        return refusal(body as Record<string, unknown>);
      const timedOut = (error as Error)?.name === "FacilitatorTimeoutError" || /timed? ?out/i.test(_message(error));
      throw apiError("payment_gateway_error", {
        detail: `The x402 facilitator's ${path} ${timedOut ? `did not answer within ${options.timeoutMs} ms` : "failed"}; nothing was issued.`,
      });
    }
  };
  const forVersion = (payment: DecodedPayment, requirements: Requirements) =>
    [
      payment.payload as unknown as PaymentPayload,
      (payment.version === 2 ? requirements.v2 : requirements.v1) as unknown as PaymentRequirements,
    ] as const;
  const text = (value: unknown) => (typeof value === "string" ? value.slice(0, 200) : null);

  const provider: X402Provider & { asset: string | null } = {
    name: "http402",
    network,
    facilitatorUrl: facilitatorConfig.url!,
    payTo: config.payTo,
    asset: config.asset?.address ?? null,
    ready,
    async requirements(amountMicros, resource) {
      await ready().catch((error: unknown) => {
        throw apiError("payment_provider_unavailable", { detail: `x402 payments cannot be quoted right now: ${_message(error)}.` });
      });
      const [v2] = await server.buildPaymentRequirements({
        scheme: "exact",
        payTo: config.payTo,
        network: network.v2 as Network,
        price: price(amountMicros),
        maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
      });
      return requirementsFor(v2!, network.v1, resource);
    },
    acceptedMatches(payment, requirements) {
      return server.findMatchingRequirements([requirements.v2], payment.payload as unknown as PaymentPayload) !== undefined;
    },
    async verify(payment, requirements) {
      const reply = await call(
        "/verify",
        () => facilitator.verify(...forVersion(payment, requirements)),
        (body) => ({ isValid: false, invalidReason: String(body.invalidReason) }) as never,
      );
      return { isValid: reply.isValid === true, invalidReason: text(reply.invalidReason), payer: text(reply.payer) };
    },
    async settle(payment, requirements) {
      const reply = await call(
        "/settle",
        () => facilitator.settle(...forVersion(payment, requirements)),
        (body) => ({ success: false, errorReason: String(body.errorReason), transaction: "", network: "" }) as never,
      );
      return {
        success: reply.success === true,
        errorReason: text(reply.errorReason),
        payer: text(reply.payer),
        transaction: text(reply.transaction) ?? "",
        network: text(reply.network) ?? "",
      };
    },
  };
  return provider;
}

/** The facilitator did not answer `/supported`: fatal at start on a mainnet, retried on a testnet. */
export class FacilitatorUnreachable extends Error {}

/**
 * A token the library's table knows for the network has one EIP-712 domain: another name or
 * version would make the server advertise a domain under which every real payment fails on chain.
 */
function _refuseOtherDomain(asset: NonNullable<X402Config["asset"]>, network: string): void {
  const known = findDefaultAsset(asset.address, network as Network);
  if (!known) return;
  const wrong = [
    ["X402_ASSET_NAME", asset.name, known.name],
    ["X402_ASSET_VERSION", asset.version, known.version],
  ].filter(([, given, own]) => given !== undefined && given !== own);
  if (wrong.length > 0)
    throw new ConfigError(
      `X402_ASSET ${asset.address} is ${known.symbol} on ${network}, whose EIP-712 domain is name "${known.name}", version "${known.version}": ${wrong
        .map(([name, given, own]) => `${name} "${given}" is not "${own}"`)
        .join(", ")} (unset both to use the table's)`,
    );
}

/** X402_NETWORK in either form (CAIP-2 `eip155:8453` or v1 `base`), from `@x402/evm`'s v1 table. */
export function resolveNetwork(configured: string): { v2: string; v1: string; testnet: boolean } {
  const table = Object.entries(EVM_NETWORK_CHAIN_ID_MAP as Record<string, number>);
  const entry = /^eip155:\d+$/.test(configured)
    ? table.find(([, id]) => `eip155:${id}` === configured)
    : table.find(([name]) => name === configured);
  if (!entry)
    throw new ConfigError(
      `X402_NETWORK "${configured.slice(0, 60)}" is not an EVM network x402 knows (e.g. eip155:8453 or base, eip155:84532 or base-sepolia)`,
    );
  return { v2: `eip155:${entry[1]}`, v1: entry[0], testnet: TESTNET_RE.test(entry[0]) };
}

// --- Internal helpers ---

/**
 * The price of `amountMicros` micro-dollars: a dollar amount converted by the exact scheme to the
 * network's default stablecoin (its table gives address, decimals and EIP-712 domain), or, for an
 * X402_ASSET override with its domain, that token's atomic units (6 decimals).
 */
function _priceOf(config: X402Config, overridden: boolean) {
  const asset = config.asset;
  if (!asset || !overridden) return (micros: number) => `$${(micros / 1_000_000).toFixed(6)}`;
  if (!asset.name || !asset.version)
    throw new ConfigError(
      "X402_ASSET_NAME and X402_ASSET_VERSION go together: the token's EIP-712 domain, which the buyer signs and the token checks",
    );
  return (micros: number) => ({ amount: String(micros), asset: asset.address, extra: { name: asset.name, version: asset.version } });
}

function _message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}
