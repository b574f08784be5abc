/**
 * The per-token ledger: how much of a KYAPay token this service has spent, as one atomic counter
 * window per token id (`jti`) whose limit is what the token may be spent to. `consume` checks and
 * adds in one step (one SQLite transaction or one Redis script), so concurrent requests on one
 * token can never spend more than its value, on one instance or many.
 *
 * A reservation is made before the network is asked to charge. It is given back only when the
 * network refused the charge (nothing moved) or a purchase holding it is released with nothing
 * charged; a charge whose outcome is unknown keeps it: the ledger may under-spend a token, never
 * over-spend it.
 *
 * A purchase's reservation is a hold (`holdForPurchase`): a second counter, keyed by the purchase,
 * moves in the same atomic step and admits the amount once, so a retry that finds the purchase
 * still `reserved` (a store error cut it off after the ledger moved) never reserves twice.
 */
import { apiError } from "../../../shared/errors.ts";
import type { CounterWindow } from "../../../state/storage/backend.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { howToPay, type VerifiedPayToken } from "../providers/agent-network.ts";
import type { PurchaseRecord } from "../purchases/purchase-store.ts";
import { formatUsdExact as formatUsd } from "../purchases/usd-decimal.ts";
import { createTokenLedgerStore } from "./token-ledger-store.ts";

/**
 * Reserves `amountMicros` of the token, refusing with 402 once `limitMicros` would be passed.
 * `alongside` are count-only windows incremented in the same atomic step (batched charges'
 * bookkeeping).
 */
export async function reserveFromLedger(
  deps: DomainDeps,
  token: VerifiedPayToken,
  amountMicros: number,
  limitMicros: number,
  now: number,
  alongside: CounterWindow[] = [],
): Promise<{ spentMicros: number }> {
  const result = await createTokenLedgerStore(deps.backend).reserve(ledgerHoldOf(token), amountMicros, limitMicros, now, alongside);
  if (!result.admitted) {
    throw apiError("payment_token_depleted", {
      detail: `This token has ${formatUsd(Math.max(0, limitMicros - result.spentMicros))} left of what it may spend here; ${formatUsd(amountMicros)} is needed.`,
      extra: { needed_usd_micros: amountMicros, unlock: howToPay() },
    });
  }
  return { spentMicros: result.spentMicros };
}

/** What a purchase records (`PurchaseRecord.ledger_hold`) before it holds part of a token's ledger. */
export function ledgerHoldOf(token: VerifiedPayToken): NonNullable<PurchaseRecord["ledger_hold"]> {
  return { jti: token.jti, expires_at: token.expiresAt };
}

/**
 * Reserves the purchase's amount of the token once per purchase: a repeat (a retry after a store
 * error) finds its own hold and reserves nothing more. Refuses like `reserveFromLedger`.
 */
export async function holdForPurchase(deps: DomainDeps, token: VerifiedPayToken, record: PurchaseRecord, now: number): Promise<void> {
  const ledger = createTokenLedgerStore(deps.backend);
  const hold = ledger.holdWindow(record.id, ledgerHoldOf(token), record.amount_usd_micros);
  try {
    await reserveFromLedger(deps, token, record.amount_usd_micros, token.valueMicros, now, [hold]);
  } catch (error) {
    const held = await ledger.held(record.id, ledgerHoldOf(token), now);
    if (held >= record.amount_usd_micros) return;
    throw error;
  }
}

/**
 * Gives a released purchase's hold back to the token's ledger, ledger and hold in one atomic step,
 * so a repeat finds the hold empty and gives nothing twice (the caller holds the purchase's lease).
 * A purchase that never reached the ledger holds nothing and gets nothing back.
 */
export async function returnPurchaseHold(deps: Pick<DomainDeps, "backend">, record: PurchaseRecord, now: number): Promise<void> {
  if (!record.ledger_hold || record.amount_usd_micros <= 0) return;
  const ledger = createTokenLedgerStore(deps.backend);
  const held = await ledger.held(record.id, record.ledger_hold, now);
  if (held < record.amount_usd_micros) return;
  await ledger.giveBackHold(record.id, record.ledger_hold, record.amount_usd_micros, now);
}

/** Gives back what a per-use read reserved when the network refused its charge (nothing moved). */
export async function returnToLedger(
  deps: Pick<DomainDeps, "backend">,
  token: VerifiedPayToken,
  amountMicros: number,
  now: number,
): Promise<void> {
  await createTokenLedgerStore(deps.backend).giveBack(ledgerHoldOf(token), amountMicros, now);
}
