/**
 * Issuing keys outside a checkout: admin issuance (POST /api/keys, `vkr keys create`) and trials.
 * Both follow the rule that nothing is consumed without the key existing:
 * - admin keys go through the purchase record like a checkout without a payment
 *   (`payments/purchases/purchase-flow.ts`): slots and a new member's seat reserved (409 when the
 *   cohort is full), keys written, all resumable or
 *   released by reconciliation if the process dies in between;
 * - a trial key is written first and only then claims its (agent, vertical) slot, so a crash can
 *   leave at most an orphan key nobody holds, never an agent locked out of its trial. A claim
 *   whose key does not exist (left by an older version) is taken over.
 */

import { randomUUID } from "node:crypto";
import { failpoint } from "../../../shared/failpoint.ts";
import type { CohortName } from "../../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../../shared/schema/keys.ts";
import type { StateBackend } from "../../../state/storage/backend.ts";
import type { KeysStore } from "../../../state/storage/keys-store.ts";
import { claimTrialSlot, releaseTrialSlot } from "../../../state/storage/trial-slots.ts";
import { foldIdentifier } from "../../accounts/identifier.ts";
import { auditKey } from "../../audit/audit-log.ts";
import { generateKey, hashKey, keyIdOf } from "../../keys/key-secret.ts";
import { completePurchase, newPurchaseId, type PurchaseDeps, reservePurchase } from "./purchase-flow.ts";
import { leasePurchase } from "./purchase-lease.ts";
import { createPurchaseStore } from "./purchase-store.ts";

export interface IssuedKey {
  key: string;
  record: KeyRecord;
}

export interface AdminIssueInput {
  vertical: string;
  quantity: number;
  agentId?: string | undefined;
  contact?: string | undefined;
  label?: string | undefined;
  permanent?: boolean | undefined;
}

/** Issues `quantity` membership keys; an account (agent_id, else contact) holds at most 5 (409). */
export async function issueAdminKeys(deps: PurchaseDeps, input: AdminIssueInput, now: number): Promise<IssuedKey[]> {
  const id = newPurchaseId();
  const holder = randomUUID();
  await leasePurchase(deps, id, holder, now, "purchase_in_progress");
  try {
    const named = input.agentId ?? input.contact;
    const account = named === undefined ? null : foldIdentifier(named);
    const { record, keys } = await reservePurchase(
      deps,
      {
        id,
        method: "admin",
        vertical: input.vertical,
        quantity: input.quantity,
        account,
        createAccount: false,
        agentId: input.agentId ?? null,
        contact: input.contact ?? null,
        label: input.label ?? null,
        permanent: input.permanent ?? false,
        secret: null,
        resumable: false,
      },
      now,
    );
    await completePurchase(deps, record, now);
    // Awaited here, not returned: a promise returned from the try is abandoned when the finally
    // throws (the store went away mid-request), and its rejection would then end the process.
    return await Promise.all(keys.map(async (key) => ({ key, record: (await deps.keys.get(hashKey(key)))! })));
  } finally {
    await createPurchaseStore(deps.backend).unlease(id, holder);
  }
}

export interface TrialIssueInput {
  vertical: string;
  agentId: string;
  cohort: CohortName;
  expiresAt: number;
}

/** The new trial key, or null when the agent already holds an active trial for this vertical. */
export async function issueTrialKey(
  deps: { backend: StateBackend; keys: KeysStore; config: { failpoint?: string | undefined } },
  input: TrialIssueInput,
  now: number,
): Promise<IssuedKey | null> {
  const key = generateKey("trial");
  const hash = hashKey(key);
  const record: KeyRecord = {
    id: keyIdOf(hash),
    hash,
    type: "trial",
    vertical: input.vertical,
    cohort: input.cohort,
    plan: "standard",
    label: null,
    agent_id: input.agentId,
    account: null,
    permanent: false,
    status: "active",
    source: "trial",
    created_at: new Date(now).toISOString(),
    expires_at: new Date(input.expiresAt).toISOString(),
    revoked_at: null,
  };
  await deps.keys.put(record);
  failpoint(deps.config, "trial:key-written");
  const slot = { vertical: input.vertical, agentId: input.agentId };
  // Two rounds at most: the second only after taking over a claim whose key never came to exist.
  for (let round = 0; round < 2; round++) {
    const claim = await claimTrialSlot(deps.backend, slot, hash, input.expiresAt, now);
    if (claim.created) {
      await auditKey({ backend: deps.backend, actor: "trial" }, "key.issued", record, now, { source: "trial", vertical: input.vertical });
      return { key, record };
    }
    if (await deps.keys.get(claim.value)) break;
    await releaseTrialSlot(deps.backend, slot, claim.value);
  }
  await deps.keys.remove(hash);
  return null;
}
