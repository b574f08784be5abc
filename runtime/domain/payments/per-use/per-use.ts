/**
 * The per-use room (`payments/per-use/`): paying for each retrieval with a KYAPay token instead of
 * a key. This file is the entry the read path calls; `token-ledger.ts` keeps what each token has
 * spent (shared with the agent-network checkout), and `charge-batcher.ts` sends the charges.
 *
 * Per-use payment on retrieval: a KYAPay pay or kya-pay token instead of a key on GET /api/demo.
 * `authorizePerUse` verifies the token (signature checked once per token, then cached) before
 * any content is chosen; `chargePerUse` spends one content node request from the token's ledger
 * (atomic, so concurrent requests never spend more than the token's value, nor more than `mnr`
 * requests) and charges it through the network: by default summed per token and sent in bounded
 * batches by `charge-batcher.ts`, so no retrieval waits on the network; with
 * PER_USE_CHARGE_BATCH_MS=0 each retrieval waits for its own charge. Index requests and 304s are
 * never charged.
 */
import { apiError, isApiError } from "../../../shared/errors.ts";
import { limitsInForce } from "../../../state/releases/build-ref.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { howToPay, type VerifiedPayToken } from "../providers/agent-network.ts";
import { toUsdDecimal } from "../purchases/usd-decimal.ts";
import { reserveFromLedger, returnToLedger } from "./token-ledger.ts";

export interface PerUseAuthorization {
  token: string;
  verified: VerifiedPayToken;
}

export async function authorizePerUse(deps: DomainDeps, token: string, now: number): Promise<PerUseAuthorization> {
  const network = deps.payments.agentNetwork;
  if (!network)
    throw apiError("per_use_not_accepted", {
      detail: "This deployment has no agent payment network configured, so per-use payment tokens are not accepted; use a key.",
    });
  const verified = await network.verify(token, now);
  if (verified.type === "kya")
    throw apiError("payment_token_required", {
      detail: "A kya token proves identity but carries no funds; content needs a pay or kya-pay token.",
      extra: { unlock: howToPay() },
    });
  if (deps.perUseCharges?.refused(verified.jti)) {
    throw apiError("payment_failed", {
      detail: "The agent payment network refused an earlier charge of this token; use another token.",
      extra: { unlock: howToPay() },
    });
  }
  return { token, verified };
}

/** Spends one content node request; returns the headers that tell the caller what it cost. */
export async function chargePerUse(deps: DomainDeps, authorization: PerUseAuthorization, now: number): Promise<Record<string, string>> {
  const price = limitsInForce(deps).per_use_price_usd_micros;
  const { verified } = authorization;
  const limit = verified.maxRequests === null ? verified.valueMicros : Math.min(verified.valueMicros, verified.maxRequests * price);
  const batcher = deps.perUseCharges;
  if (batcher) {
    const ids = { jti: verified.jti, sub: verified.sub, expiresAt: verified.expiresAt };
    // Known durably before anything is reserved, so a crash after this point is reconciled.
    await batcher.track(authorization.token, ids);
    const { spentMicros } = await reserveFromLedger(deps, verified, price, limit, now, [batcher.reservedWindow(ids)]);
    // Reserved in the ledger above, so batching the network call cannot overspend the token.
    batcher.add(authorization.token, ids, price);
    return _costHeaders(price, limit, spentMicros);
  }
  const { spentMicros } = await reserveFromLedger(deps, verified, price, limit, now);
  try {
    await deps.payments.agentNetwork!.charge(authorization.token, price);
  } catch (error) {
    // Refused: nothing moved, so the token keeps what was reserved. An unknown outcome keeps it spent.
    if (isApiError(error) && error.code === "payment_failed") await returnToLedger(deps, verified, price, now);
    throw error;
  }
  deps.logger.info("per-use charge", { jti: verified.jti, sub: verified.sub, charged_usd_micros: price, spent_usd_micros: spentMicros });
  return _costHeaders(price, limit, spentMicros);
}

function _costHeaders(price: number, limit: number, spentMicros: number): Record<string, string> {
  return { "pay-network-charged": toUsdDecimal(price), "pay-network-remaining": toUsdDecimal(Math.max(0, limit - spentMicros)) };
}
