/**
 * Issuing the keys a checkout paid for: through `issueKeys` (source "checkout"), so the account
 * cap and key format are enforced in the one place, and described exactly as admin issuance
 * describes them.
 */
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { issueKeys, type IssuedKey } from "../keys/issue-keys.ts";
import { seatClaimedHook } from "../cohorts/progression.ts";
import { describeKey } from "../keys/key-view.ts";
import type { CohortName } from "../schema/catalog.ts";

export interface PurchasedKeysInput {
  vertical: string;
  quantity: number;
  cohort: CohortName;
  agentId: string | undefined;
  contact: string | undefined;
}

export async function issuePurchasedKeys(deps: AppDeps, input: PurchasedKeysInput, now: number): Promise<IssuedKey[]> {
  return issueKeys(
    { backend: deps.backend, keys: deps.keys, limits: limitsInForce(deps), onSeatClaimed: seatClaimedHook(deps) },
    { type: "membership", vertical: input.vertical, quantity: input.quantity, cohort: input.cohort, source: "checkout", agentId: input.agentId, contact: input.contact, expiresAt: null },
    now,
  );
}

/** The `keys` array of a 201, the same shape as POST /api/keys. */
export async function describeIssuedKeys(deps: AppDeps, issued: IssuedKey[], now: number) {
  const limits = limitsInForce(deps);
  return Promise.all(issued.map(async (i) => ({ key: i.key, ...(await describeKey(deps.backend, limits, i.record, now)) })));
}
