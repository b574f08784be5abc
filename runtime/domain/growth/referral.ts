/**
 * Referrals. A member or trial agent logs an agent it referred; the credit ($1.50, at most 4 per
 * billing cycle) is earned only when the referred agent becomes a paying member, and is owed to the
 * referrer's account, applied at its next renewal (so a trial referrer sees it once it is a member).
 * Rules at logging, in order:
 *   1. `referring_key` must be the key in X-Service-Key (403 `key_mismatch`).
 *   2. Referring yourself (your own agent_id or account) is 400 `self_referral`.
 *   3. An agent that already holds a membership cannot be referred (409 `already_member`).
 *   4. An agent is referred once, by anyone (insert-once; 409 `already_referred`).
 * The referral is logged `pending`. `qualifyReferral` runs when a paid purchase issues keys: the
 * buyer's pending referral is counted against the referrer's cycle cap (atomically, once per
 * referral) and credited, or logged `cap_reached` with 0. Every step is idempotent, so the
 * purchase's retries and reconciliation can run it again safely.
 * The billing cycle is the UTC calendar month in which the referral qualifies.
 */

import { randomUUID } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import { apiError } from "../../shared/errors.ts";
import { formatUsd } from "../../shared/money.ts";
import type { ReferralRequest } from "../../shared/schema/growth-requests.ts";
import type { ReferralLoggedSchema } from "../../shared/schema/growth-responses.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import { createCreditsStore } from "../../state/storage/credits-store.ts";
import type { PresentedKey } from "../access/require-key.ts";
import { foldIdentifier, readIdentifier } from "../accounts/identifier.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { createReferralStore, type ReferralEntry, referralGrantId } from "./referral-store.ts";

type ReferralLogged = Static<typeof ReferralLoggedSchema>;

export async function logReferral(deps: DomainDeps, caller: PresentedKey, body: ReferralRequest, now: number): Promise<ReferralLogged> {
  if (body.referring_key !== caller.key) {
    throw apiError("key_mismatch", {
      detail: "referring_key must be the key sent in X-Service-Key.",
      errors: [{ pointer: "/referring_key", message: "not the caller's key" }],
    });
  }
  const account = referrerAccountOf(caller.record);
  const referred = readIdentifier(body.referred_agent_id, "/referred_agent_id");
  if (referred === (caller.record.agent_id === null ? null : foldIdentifier(caller.record.agent_id)) || referred === account) {
    throw apiError("self_referral", { errors: [{ pointer: "/referred_agent_id", message: "is the caller's own agent" }] });
  }
  if ((await deps.keys.listByAccount(referred)).some((k) => k.type === "membership")) {
    throw apiError("already_member", { errors: [{ pointer: "/referred_agent_id", message: "already holds a membership" }] });
  }
  const id = `ref_${randomUUID()}`;
  const store = createReferralStore(deps.backend);
  if (!(await store.claimReferred(referred, id, now))) {
    throw apiError("already_referred", { errors: [{ pointer: "/referred_agent_id", message: "was already referred" }] });
  }
  const referral: ReferralEntry = {
    id,
    referring_key_id: caller.record.id,
    referred_agent_id: body.referred_agent_id,
    method: body.method ?? null,
    status: "pending",
    credited_usd_micros: 0,
    credited: formatUsd(0),
    cycle: null,
    created_at: new Date(now).toISOString(),
    qualified_at: null,
    account,
  };
  await store.saveEntry(referral);
  const { account: _, ...shown } = referral;
  return { referral: shown, credit_balance: await _balance(deps, account), cycle: await _cycle(deps, account, now) };
}

/**
 * A paid purchase issued keys to `agentId` (or `account`): its pending referral, if any, is
 * counted and credited to the referrer. Safe to call any number of times.
 */
export async function qualifyReferral(
  deps: Pick<DomainDeps, "backend" | "build" | "config" | "logger">,
  buyer: { agentId: string | null; account: string; purchaseId: string },
  now: number,
): Promise<void> {
  const store = createReferralStore(deps.backend);
  for (const name of new Set([buyer.agentId === null ? null : foldIdentifier(buyer.agentId), foldIdentifier(buyer.account)])) {
    if (!name) continue;
    // The buyer is a member now: closing its referrals keeps later ones out and finds the first, if any.
    const referralId = await store.closeReferrals(name, now);
    if (referralId === null) continue;
    const entry = await store.entry(referralId);
    if (entry?.status !== "pending") continue;
    await _credit(deps, entry, buyer.purchaseId, now);
  }
}

/** The ledger account a key's referrals are credited to: its account, else its agent (trial keys). */
export function referrerAccountOf(record: KeyRecord): string {
  return foldIdentifier(record.account ?? record.agent_id ?? `key:${record.id}`);
}

// --- Internal helpers ---

async function _credit(
  deps: Pick<DomainDeps, "backend" | "build" | "config" | "logger">,
  entry: ReferralEntry,
  purchaseId: string,
  now: number,
): Promise<void> {
  const limits = limitsInForce(deps);
  const store = createReferralStore(deps.backend);
  const { id: cycle, endsAt } = _cycleOf(now);
  // Counted once per referral, however often a purchase's retries qualify it.
  let credited = await store.counted(entry.id);
  if (!credited) {
    // The cycle's count is kept 40 days past its end.
    const count = await store.countAgainstCap(
      entry,
      { id: cycle, keepUntil: endsAt + 40 * 86_400_000, limit: limits.referrals_per_cycle },
      now,
    );
    credited = count !== "cap_reached";
  }
  const amount = credited ? limits.referral_credit_usd_micros : 0;
  if (amount > 0) {
    await createCreditsStore(deps.backend).grant(
      {
        grantId: referralGrantId(entry.id),
        account: entry.account,
        kind: "referral",
        amountUsdMicros: amount,
        reason: `referral of ${entry.referred_agent_id}`,
      },
      now,
    );
  }
  const done: ReferralEntry = {
    ...entry,
    status: credited ? "credited" : "cap_reached",
    credited_usd_micros: amount,
    credited: formatUsd(amount),
    cycle,
    qualified_at: new Date(now).toISOString(),
  };
  await store.saveEntry(done);
  deps.logger.info("referral qualified", { referral_id: entry.id, purchase_id: purchaseId, status: done.status });
}

async function _balance(deps: DomainDeps, account: string) {
  const balance = await createCreditsStore(deps.backend).balance(account);
  return { usd_micros: balance, amount: formatUsd(balance), applies: "next_renewal" as const };
}

async function _cycle(deps: DomainDeps, account: string, now: number) {
  const limits = limitsInForce(deps);
  const { id } = _cycleOf(now);
  const credited = await createReferralStore(deps.backend).countedInCycle(account, id, now);
  return {
    id,
    referrals_credited: credited,
    max_credited: limits.referrals_per_cycle,
    credit_cap_usd_micros: limits.referrals_per_cycle * limits.referral_credit_usd_micros,
  };
}

/** The UTC calendar month: `2026-11`, ending at the first instant of the next month. */
function _cycleOf(now: number): { id: string; endsAt: number } {
  const d = new Date(now);
  return { id: d.toISOString().slice(0, 7), endsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}
