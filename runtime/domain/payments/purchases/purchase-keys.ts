/**
 * The keys of a purchase. They are generated when the purchase is reserved, so every later step
 * is a pure function of the durable record: issuing writes the key records from the stored hashes
 * (no secret needed, so reconciliation can finish it), and the client gets the plaintext from the
 * sealed copy with the secret only it presents again (its Idempotency-Key and payment credential,
 * its x402 payment signature) or, for card, the server's Stripe secret.
 *
 * Issuing is idempotent and ordered so that nothing is consumed without a key behind it: the key
 * records first, then the cohort roster (the seat itself was taken at reservation), the volume
 * plan and the referral that this payment qualifies, each safe to repeat.
 */
import { failpoint } from "../../../shared/failpoint.ts";
import type { KeyRecord } from "../../../shared/schema/keys.ts";
import { limitsInForce } from "../../../state/releases/build-ref.ts";
import { joinSeatsRoster } from "../../../state/storage/list-names.ts";
import { claimCohortSeat } from "../../cohorts/progression.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { qualifyReferral } from "../../growth/referral.ts";
import { generateKey, hashKey, keyIdOf } from "../../keys/key-secret.ts";
import { describeKey } from "../../keys/key-view.ts";
import type { PurchaseDeps } from "./purchase-flow.ts";
import type { PurchaseRecord } from "./purchase-store.ts";
import { openAnswer, type SealedAnswer, sealAnswer } from "./sealed-answer.ts";

export interface PreparedKeys {
  keys: string[];
  ids: string[];
  hashes: string[];
  sealed: SealedAnswer | null;
}

/** New membership keys, sealed under `secret` (null: not kept, the caller answers at once). */
export function prepareKeys(purchaseId: string, quantity: number, secret: string | null): PreparedKeys {
  const keys = Array.from({ length: quantity }, () => generateKey("membership"));
  const hashes = keys.map(hashKey);
  return { keys, ids: hashes.map(keyIdOf), hashes, sealed: secret === null ? null : sealAnswer(keys, secret, _slot(purchaseId)) };
}

/** The purchase's keys in clear, or null when `secret` does not open them (or they were dropped). */
export function openKeys(record: PurchaseRecord, secret: string): string[] | null {
  if (!record.sealed_keys) return null;
  return openAnswer<string[]>(record.sealed_keys, secret, _slot(record.id));
}

/**
 * Writes the purchase's key records (skipping any that exist, so a key revoked meanwhile stays
 * revoked), then enters a new member in its cohort's roster, moves a full account to the volume
 * plan and, for a paid purchase, qualifies a pending referral of the buyer. Returns the records.
 */
export async function issuePurchaseKeys(deps: PurchaseDeps, record: PurchaseRecord, now: number): Promise<KeyRecord[]> {
  const limits = limitsInForce(deps);
  const created = new Date(now).toISOString();
  const issued: KeyRecord[] = [];
  for (const [i, hash] of record.key_hashes.entries()) {
    const existing = await deps.keys.get(hash);
    if (existing) {
      issued.push(existing);
      continue;
    }
    const key: KeyRecord = {
      id: record.key_ids[i]!,
      hash,
      type: "membership",
      vertical: record.vertical,
      cohort: record.cohort,
      plan: "standard",
      label: record.label,
      agent_id: record.agent_id,
      account: record.account,
      permanent: record.permanent,
      status: "active",
      source: record.method === "admin" ? "admin" : "checkout",
      created_at: created,
      expires_at: null,
      revoked_at: null,
    };
    await deps.keys.put(key);
    issued.push(key);
    failpoint(deps.config, "purchase:issuing");
  }
  if (!record.account) return issued;
  const account = record.account.toLowerCase();
  // One roster entry per member account, however many keys it holds; written only once a key exists.
  const seat = await joinSeatsRoster(deps.backend, account);
  if (seat.created) await claimCohortSeat(deps, { account, cohort: record.cohort }, now);
  // The 5-key volume plan: once an account holds the maximum, all its keys get the scale limits.
  const held = (await deps.keys.listByAccount(account)).filter((k) => k.type === "membership");
  if (held.length >= limits.keys_per_account) {
    for (const other of held) if (other.plan !== "volume") await deps.keys.put({ ...other, plan: "volume" });
    for (const [i, key] of issued.entries()) issued[i] = { ...key, plan: "volume" };
  }
  if (record.method !== "admin") await qualifyReferral(deps, { agentId: record.agent_id, account, purchaseId: record.id }, now);
  return issued;
}

/** The `keys` array of a 201, the same shape as POST /api/keys. */
export async function describePurchasedKeys(deps: DomainDeps, keys: readonly string[], now: number) {
  const limits = limitsInForce(deps);
  return Promise.all(
    keys.map(async (key) => {
      const record = await deps.keys.get(hashKey(key));
      if (!record) throw new Error("a purchased key has no record after issuance");
      return { key, ...(await describeKey(deps.backend, limits, record, now)) };
    }),
  );
}

// --- Internal helpers ---

function _slot(purchaseId: string): string {
  return `purchase:${purchaseId}:keys`;
}
