/**
 * Whose account a checkout buys into. Accounts are owned: the first purchase creates one (named by
 * `agent_id`, else `contact`, else a generated `acct_…` id), and any later purchase for it, which
 * spends its price tier, its 5-key cap and, at 5 keys, moves it to the pooled volume plan, must
 * present a live membership key of that account in X-Service-Key.
 *
 * Without that proof a purchase may only create its account: taking the account's first slot is
 * the atomic test (`account-slots.ts`), so an existing account, or one another purchase is
 * creating right now, is refused 403 `account_proof_required` before any payment. A key that is
 * malformed, unknown, revoked or expired is 401 as everywhere; a trial key, or the key of another
 * account, proves nothing (403).
 *
 * With a key, the key names the account: `contact` is then only where the keys are mailed, and an
 * `agent_id`, when sent, must name the same account. Names are compared folded (`identifier.ts`).
 */
import { randomBytes } from "node:crypto";
import { apiError } from "../../shared/errors.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { KeysStore } from "../../state/storage/keys-store.ts";
import { resolveKey } from "../access/credentials.ts";
import { foldIdentifier } from "./identifier.ts";

export interface PurchaseAccount {
  account: string;
  /** True when the purchase must create the account (no proof presented). */
  create: boolean;
  /** The key that proved ownership, if one did. */
  proof: KeyRecord | null;
}

export interface PurchaseAccountInput {
  agentId: string | undefined;
  contact: string | undefined;
  /** The key in X-Service-Key (or `Authorization: Bearer svc_…`), null when none was sent. */
  presentedKey: string | null;
}

export async function resolvePurchaseAccount(keys: KeysStore, input: PurchaseAccountInput, now: number): Promise<PurchaseAccount> {
  if (input.presentedKey === null || input.presentedKey === "") {
    const named = input.agentId ?? input.contact;
    return { account: named === undefined ? `acct_${randomBytes(12).toString("hex")}` : foldIdentifier(named), create: true, proof: null };
  }
  const record = await resolveKey(input.presentedKey, keys, now);
  if (record.type !== "membership" || record.account === null) {
    throw apiError("account_proof_required", {
      detail:
        record.type === "trial"
          ? "A trial key does not prove ownership of an account; send a membership key of the account."
          : "This key belongs to no account; send a membership key of the account you buy for, or send none to create a new account.",
    });
  }
  if (input.agentId !== undefined && foldIdentifier(input.agentId) !== foldIdentifier(record.account)) {
    throw apiError("account_proof_required", {
      detail: "The key in X-Service-Key belongs to another account than the agent_id of this purchase.",
    });
  }
  return { account: record.account, create: false, proof: record };
}
