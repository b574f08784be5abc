/**
 * The stored claims of retryable purchase requests (`idempotency.ts` decides what they mean):
 * `idem:<digest>` for an Idempotency-Key, `x402:<digest>` for an x402 payment, each an insert-once
 * entry with an expiry whose value is `<request fingerprint> <purchase id>`. The key of a claim is a
 * digest of its scope and the caller's key, so the store never holds the key itself.
 */
import type { StateBackend } from "../../../state/storage/backend.ts";
import { digestOf } from "./checkout-order.ts";

export type ClaimScope = "idem" | "x402";

export interface StoredClaim {
  /** Store key of the claim: what `release` is given back. */
  slot: string;
  /** Stored value, ours if `created`, the earlier request's otherwise. */
  value: string;
  created: boolean;
  /** The fingerprint of the request that holds the claim ("" if the value names none). */
  fingerprint: string;
  /** The purchase the claim names; undefined if the value names none. */
  purchaseId: string | undefined;
}

export interface IdempotencyStore {
  /**
   * Takes the claim `scope`/`key` for a request with this fingerprint, naming `purchaseId`, until
   * `expiresAt` (first writer wins); otherwise finds the claim an earlier request holds.
   */
  claim(scope: ClaimScope, key: string, fingerprint: string, purchaseId: string, expiresAt: number, now: number): Promise<StoredClaim>;
  /** Frees a claim, only while it still holds `value` (compare and delete: never one a later request took). */
  release(claim: { slot: string; value: string }): Promise<void>;
}

export function createIdempotencyStore(backend: StateBackend): IdempotencyStore {
  return {
    async claim(scope, key, fingerprint, purchaseId, expiresAt, now) {
      const slot = `${scope}:${digestOf(scope, key)}`;
      const taken = await backend.insertOnce(slot, `${fingerprint} ${purchaseId}`, expiresAt, now);
      const [storedFingerprint = "", storedPurchaseId] = taken.value.split(" ");
      return { slot, value: taken.value, created: taken.created, fingerprint: storedFingerprint, purchaseId: storedPurchaseId };
    },
    async release(claim) {
      await backend.removeOnce(claim.slot, claim.value);
    },
  };
}
