/**
 * Referrals. A member (membership key; trial keys have no renewal to credit) logs an agent it
 * referred. Rules, in the order they are checked:
 *   1. `referring_key` must be the key in X-Service-Key (403 `key_mismatch`).
 *   2. Referring yourself (your own agent_id or account) is 400 `self_referral`.
 *   3. An agent is referred once, by anyone (`insertOnce`; 409 `already_referred`).
 *   4. The first 4 referrals of a billing cycle earn $1.50 each (a `consume` window per account
 *      and cycle, so racing requests never credit a fifth); later ones are logged with 0 credit.
 * The billing cycle is the UTC calendar month (the same month the monthly quota uses); credit is
 * owed in the ledger (`credits-store.ts`) and applied at the next renewal.
 */
import { randomUUID } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import type { PresentedKey } from "../access/require-key.ts";
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { apiError } from "../errors.ts";
import { formatUsd } from "../money.ts";
import type { ReferralRequest } from "../schema/growth-requests.ts";
import type { ReferralLoggedSchema } from "../schema/growth-responses.ts";
import { createCreditsStore, creditAccountOf } from "../storage/credits-store.ts";

type ReferralLogged = Static<typeof ReferralLoggedSchema>;

export async function logReferral(deps: AppDeps, caller: PresentedKey, body: ReferralRequest, now: number): Promise<ReferralLogged> {
  if (body.referring_key !== caller.key) {
    throw apiError("key_mismatch", { detail: "referring_key must be the key sent in X-Service-Key.", errors: [{ pointer: "/referring_key", message: "not the caller's key" }] });
  }
  const account = creditAccountOf(caller.record);
  const referred = body.referred_agent_id.toLowerCase();
  if (referred === caller.record.agent_id?.toLowerCase() || referred === account) {
    throw apiError("self_referral", { errors: [{ pointer: "/referred_agent_id", message: "is the caller's own agent" }] });
  }
  const once = await deps.backend.insertOnce(`referral:agent:${_hex(referred)}`, account, null, now);
  if (!once.created) throw apiError("already_referred", { errors: [{ pointer: "/referred_agent_id", message: "was already referred" }] });

  const limits = limitsInForce(deps);
  const { id: cycle, endsAt } = _cycleOf(now);
  const cap = await deps.backend.consume(
    [{ key: `referral-cap:${_hex(account)}:${cycle}`, limit: limits.referrals_per_cycle, expiresAt: endsAt + 40 * 86_400_000 }],
    1,
    now,
  );
  const credited = cap.admitted ? limits.referral_credit_usd_micros : 0;
  const id = `ref_${randomUUID()}`;
  const createdAt = new Date(now).toISOString();
  const credits = createCreditsStore(deps.backend);
  if (credited > 0) {
    await credits.grant({ grantId: `referral:${id}`, account, kind: "referral", amountUsdMicros: credited, reason: `referral of ${body.referred_agent_id}` }, now);
  }
  const referral: ReferralLogged["referral"] = {
    id,
    referring_key_id: caller.record.id,
    referred_agent_id: body.referred_agent_id,
    method: body.method ?? null,
    status: cap.admitted ? "credited" : "cap_reached",
    credited_usd_micros: credited,
    credited: formatUsd(credited),
    cycle,
    created_at: createdAt,
  };
  await deps.backend.records.setItem(`referral:log:${id}`, { ...referral, account });
  const balance = await credits.balance(account);
  return {
    referral,
    credit_balance: { usd_micros: balance, amount: formatUsd(balance), applies: "next_renewal" },
    cycle: {
      id: cycle,
      referrals_credited: cap.counts[0]!,
      max_credited: limits.referrals_per_cycle,
      credit_cap_usd_micros: limits.referrals_per_cycle * limits.referral_credit_usd_micros,
    },
  };
}

// --- Internal helpers ---

/** The UTC calendar month: `2026-11`, ending at the first instant of the next month. */
function _cycleOf(now: number): { id: string; endsAt: number } {
  const d = new Date(now);
  return { id: d.toISOString().slice(0, 7), endsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

function _hex(value: string): string {
  return Buffer.from(value, "utf8").toString("hex");
}
