/**
 * What a facilitator's `/settle` answer means, read the same way for a checkout and for a paid
 * read. An authorization's nonce settles once on chain, so a settle whose outcome was lost can be
 * asked again; "nonce used" then means paid, but only when our own earlier attempt may have used
 * it (otherwise someone else spent the authorization first: a refusal). An expired authorization
 * after such an attempt is a refusal the caller flags for the operator: the facilitator checks
 * expiry before the nonce, so the lost attempt may still have settled. No answer, or one the
 * library cannot read, throws (502) and leaves the payment to be asked again.
 */
import type { Network, SettleResponse } from "@x402/core/types";
import type { X402Provider } from "../../providers/http402.ts";
import type { DecodedPayment, Requirements } from "./x402-requirements.ts";

/**
 * How facilitators report an authorization whose nonce was already used on chain: the v2 exact
 * scheme's reason code, or (the v1 scheme passes the revert through) USDC's own revert message.
 */
export const NONCE_USED_RE = /nonce_used|nonce_already_used|authorization_used|authorization is used/i;
/** The exact scheme's reason for an authorization past its `validBefore`. */
export const EXPIRED_RE = /valid_before|expired/i;

export type SettleFailure = SettleResponse & { errorReason: string };

export type SettleOutcome =
  /** `transaction` null: settled by an earlier attempt of ours whose answer was lost (not reported). */
  | { paid: true; transaction: string | null }
  /** Refused, nothing moved by this call; `expiredAfterAttempt`: check the chain, a lost attempt may have settled. */
  | { paid: false; failure: SettleFailure; expiredAfterAttempt: boolean };

export async function settleOnce(
  x402: X402Provider,
  payment: DecodedPayment,
  requirements: Requirements,
  attemptedBefore: boolean,
): Promise<SettleOutcome> {
  const settled = await x402.settle(payment, requirements);
  if (settled.success) return { paid: true, transaction: settled.transaction };
  const reason = settled.errorReason ?? "settlement_failed";
  if (attemptedBefore && NONCE_USED_RE.test(reason)) return { paid: true, transaction: null };
  return {
    paid: false,
    expiredAfterAttempt: attemptedBefore && EXPIRED_RE.test(reason),
    failure: {
      success: false,
      errorReason: reason,
      transaction: settled.transaction,
      network: (settled.network || payment.network) as Network,
      ...(settled.payer ? { payer: settled.payer } : {}),
    },
  };
}
