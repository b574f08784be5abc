/**
 * The per-token ledger: how much of a KYAPay token this service has spent, as one atomic counter
 * window per token id (`jti`) whose limit is what the token may be spent to. `consume` checks and
 * adds in one step (one SQLite transaction or one Redis script), so concurrent requests on one
 * token can never spend more than its value, on one instance or many.
 *
 * A reservation is made before the network is asked to charge and is not given back if the charge
 * then fails: the ledger may under-spend a token, never over-spend it.
 */
import type { AppDeps } from "../../deps.ts";
import { apiError } from "../../errors.ts";
import { formatUsdExact as formatUsd } from "../purchases/usd-decimal.ts";
import { howToPay, type VerifiedPayToken } from "../providers/agent-network.ts";
import type { CounterWindow } from "../../storage/backend.ts";

/** Sellers may charge a token up to 24 h after its `exp`. */
export const CHARGE_WINDOW_MS = 24 * 3600_000;
/** The ledger (and the batched charges' counters) outlive the charge window. */
export const LEDGER_GRACE_MS = CHARGE_WINDOW_MS + 3600_000;

/**
 * Reserves `amountMicros` of the token, refusing with 402 once `limitMicros` would be passed.
 * `alongside` are count-only windows incremented in the same atomic step (batched charges'
 * bookkeeping).
 */
export async function reserveFromLedger(
  deps: AppDeps,
  token: VerifiedPayToken,
  amountMicros: number,
  limitMicros: number,
  now: number,
  alongside: CounterWindow[] = [],
): Promise<{ spentMicros: number }> {
  const result = await deps.backend.consume(
    [{ key: `payledger:${token.jti}`, limit: limitMicros, expiresAt: token.expiresAt + LEDGER_GRACE_MS }, ...alongside],
    amountMicros,
    now,
  );
  if (!result.admitted) {
    throw apiError("payment_token_depleted", {
      detail: `This token has ${formatUsd(Math.max(0, limitMicros - result.counts[0]!))} left of what it may spend here; ${formatUsd(amountMicros)} is needed.`,
      extra: { needed_usd_micros: amountMicros, unlock: howToPay() },
    });
  }
  return { spentMicros: result.counts[0]! };
}
