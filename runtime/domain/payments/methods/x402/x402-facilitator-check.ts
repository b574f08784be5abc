/**
 * The x402 method's check at start (`x402-method.ts`, run by `start.ts` through the registry).
 */
import { ConfigError } from "../../../../shared/errors.ts";
import type { Logger } from "../../../../shared/logger.ts";
import { FacilitatorUnreachable, type X402Provider } from "../../providers/http402.ts";

/**
 * x402 starts only with a facilitator that settles on the configured network. One that answers
 * without it is a configuration error anywhere; one that does not answer is fatal on a mainnet
 * (real money would be quoted with nobody to settle it) and a warning on a testnet, where the
 * check is retried at the first checkout.
 */
export async function checkFacilitator(x402: X402Provider, logger: Logger): Promise<void> {
  try {
    await x402.ready();
  } catch (error) {
    if (!(error instanceof FacilitatorUnreachable)) throw error;
    if (!x402.network.testnet)
      throw new ConfigError(
        `X402_NETWORK is ${x402.network.v2} (a mainnet) but ${error.message}; set X402_FACILITATOR_URL (or CDP_API_KEY_ID and CDP_API_KEY_SECRET) to a facilitator that settles there`,
      );
    logger.warn("x402 facilitator unreachable at start; checked again at the first checkout", {
      network: x402.network.v2,
      reason: error.message,
    });
  }
}
