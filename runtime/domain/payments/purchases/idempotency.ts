/**
 * Which purchase a request belongs to. A request that can be retried carries a claim: its
 * `Idempotency-Key` (after Stripe's model), or for x402 the signed payment itself (network, payer,
 * nonce). The first request with a claim takes it atomically (insert-once) and names a new
 * purchase in it; every retry with the same claim and the same request finds that purchase and
 * resumes or replays it (`purchase-flow.ts`), so a retry never charges twice, even across a crash.
 *
 * - The same claim with a different request (another body or payment credential) is refused:
 *   422 for an Idempotency-Key, "nonce used" for an x402 payment.
 * - A purchase that ended without charging (refused, released) frees its claim, so the client can
 *   fix the payment and retry under the same key.
 * - Claims last 24 hours; the store holds only digests of the key and of the request.
 * - An Idempotency-Key belongs to its caller, as Stripe scopes keys to an account
 *   (`scopeIdempotencyKey`): two buyers who happen to pick the same key never meet.
 */

import { apiError } from "../../../shared/errors.ts";
import { foldIdentifier } from "../../accounts/identifier.ts";
import type { PurchaseAccount } from "../../accounts/purchase-account.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { type ClaimScope, createIdempotencyStore } from "./idempotency-store.ts";
import { newPurchaseId } from "./purchase-flow.ts";

export interface SavedResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface PurchaseClaim {
  /** Store key of the claim. */
  slot: string;
  /** Stored value: the request's fingerprint and the purchase it names. */
  value: string;
  purchaseId: string;
  /** True for the request that took the claim; false for a retry. */
  created: boolean;
}

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
const CLAIM_MS = 24 * 3600_000;

/** The Idempotency-Key header checked for shape; null when absent. */
export function readIdempotencyKey(headers: Headers): string | null {
  const key = headers.get("idempotency-key");
  if (key === null) return null;
  if (!KEY_RE.test(key)) {
    throw apiError("validation_failed", {
      detail: "Idempotency-Key must be 1 to 255 printable ASCII characters.",
      errors: [{ pointer: "/header/Idempotency-Key", message: "1-255 printable ASCII characters" }],
    });
  }
  return key;
}

/**
 * The Idempotency-Key within its caller's namespace: the account proven by the key in
 * X-Service-Key, else the agent_id, else the contact (both folded), else the namespace of callers
 * who name nobody.
 */
export function scopeIdempotencyKey(
  key: string,
  caller: { account: PurchaseAccount; agentId: string | undefined; contact: string | undefined },
): string {
  const owner = caller.account.proof
    ? `account:${caller.account.account}`
    : caller.agentId !== undefined
      ? `agent:${foldIdentifier(caller.agentId)}`
      : caller.contact !== undefined
        ? `contact:${foldIdentifier(caller.contact)}`
        : "anonymous";
  return `${owner}\u0000${key}`;
}

/**
 * Takes (or finds) the claim `scope`/`key` for a request with this `fingerprint`. Returns null
 * when the claim is held by a different request.
 */
export async function claimPurchase(
  deps: DomainDeps,
  scope: ClaimScope,
  key: string,
  fingerprint: string,
  now: number,
): Promise<PurchaseClaim | null> {
  return (await claimOrHolder(deps, scope, key, fingerprint, now)).claim;
}

/** As `claimPurchase`, and the fingerprint of the request that holds the claim (ours when taken or found). */
export async function claimOrHolder(
  deps: DomainDeps,
  scope: ClaimScope,
  key: string,
  fingerprint: string,
  now: number,
): Promise<{ claim: PurchaseClaim | null; heldBy: string }> {
  const stored = await createIdempotencyStore(deps.backend).claim(scope, key, fingerprint, newPurchaseId(), now + CLAIM_MS, now);
  const { slot, value, created, purchaseId } = stored;
  if (stored.fingerprint !== fingerprint || !purchaseId) return { claim: null, heldBy: stored.fingerprint };
  return { claim: { slot, value, purchaseId, created }, heldBy: stored.fingerprint };
}

/** Frees a claim (compare-and-delete: never one a later request took). */
export async function releaseClaim(deps: DomainDeps, claim: PurchaseClaim): Promise<void> {
  await createIdempotencyStore(deps.backend).release(claim);
}

/** The 422 for an Idempotency-Key sent again with another request. */
export function idempotencyKeyReused() {
  return apiError("idempotency_key_reused");
}
