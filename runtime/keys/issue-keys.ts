/**
 * Issuing keys: admin issuance, trials and (later) checkout all come through here, so the account
 * cap and the key format are enforced in one place. The cap of 5 keys per account is an atomic
 * counter: racing requests can never give an account a sixth key.
 */
import { apiError } from "../errors.ts";
import type { CohortName, Limits } from "../schema/catalog.ts";
import type { KeyRecord, KeyType } from "../schema/keys.ts";
import type { StateBackend } from "../storage/backend.ts";
import type { KeysStore } from "../storage/keys-store.ts";
import { generateKey, hashKey, keyIdOf } from "./key-secret.ts";
import { SEATS_LIST } from "../storage/list-names.ts";

export interface IssueKeysInput {
  type: KeyType;
  vertical: string;
  quantity: number;
  cohort: CohortName;
  source: KeyRecord["source"];
  agentId?: string | undefined;
  contact?: string | undefined;
  label?: string | undefined;
  permanent?: boolean | undefined;
  /** Absolute expiry (trials); null for keys that do not expire. */
  expiresAt: number | null;
}

export interface IssuedKey {
  key: string;
  record: KeyRecord;
}

/** Called once per member account, when it claims its cohort seat (see `cohorts/progression.ts`). */
export type SeatClaimedHook = (seat: { account: string; cohort: CohortName }, now: number) => Promise<void>;

/**
 * Issues `quantity` keys. Callers issuing membership keys pass `onSeatClaimed:
 * seatClaimedHook(deps)` so a new member joins its cohort and progression is evaluated.
 */
export async function issueKeys(
  deps: { backend: StateBackend; keys: KeysStore; limits: Limits; onSeatClaimed?: SeatClaimedHook | undefined },
  input: IssueKeysInput,
  now: number,
): Promise<IssuedKey[]> {
  const account = input.type === "membership" ? (input.agentId ?? input.contact ?? null) : null;
  let held = 0;
  if (account) {
    const cap = deps.limits.keys_per_account;
    const slot = await deps.backend.consume(
      [{ key: `acctcap:${Buffer.from(account.toLowerCase()).toString("hex")}`, limit: cap, expiresAt: Number.MAX_SAFE_INTEGER }],
      input.quantity,
      now,
    );
    if (!slot.admitted) {
      throw apiError("conflict", {
        detail: `An account holds at most ${cap} keys; this one holds ${slot.counts[0]} and asked for ${input.quantity} more.`,
        extra: { keys_held: slot.counts[0], max_keys: cap },
      });
    }
    held = slot.counts[0]!;
    // A member account takes one cohort seat, however many keys it holds.
    const seat = await deps.backend.claimPosition(SEATS_LIST, account.toLowerCase());
    if (seat.created) await deps.onSeatClaimed?.({ account: account.toLowerCase(), cohort: input.cohort }, now);
  }
  // The 5-key volume plan: once an account holds the maximum, all its keys get the scale limits.
  const plan: KeyRecord["plan"] = account && held >= deps.limits.keys_per_account ? "volume" : "standard";
  const created = new Date(now).toISOString();
  const issued: IssuedKey[] = [];
  for (let i = 0; i < input.quantity; i++) {
    const key = generateKey(input.type);
    const hash = hashKey(key);
    const record: KeyRecord = {
      id: keyIdOf(hash),
      hash,
      type: input.type,
      vertical: input.vertical,
      cohort: input.cohort,
      plan,
      label: input.label ?? null,
      agent_id: input.agentId ?? null,
      account,
      permanent: input.permanent ?? false,
      status: "active",
      source: input.source,
      created_at: created,
      expires_at: input.expiresAt === null ? null : new Date(input.expiresAt).toISOString(),
      revoked_at: null,
    };
    await deps.keys.put(record);
    issued.push({ key, record });
  }
  if (plan === "volume" && account) {
    for (const other of await deps.keys.listByAccount(account)) {
      if (other.plan !== "volume") await deps.keys.put({ ...other, plan: "volume" });
    }
  }
  return issued;
}
