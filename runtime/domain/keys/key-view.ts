/**
 * The public view of a key: its record's safe fields plus usage and remaining quota, read from
 * the same counters the meter increments. Never includes the hash, contact or account.
 */

import { formatUsd } from "../../shared/money.ts";
import type { Limits } from "../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { KeyDetails } from "../../shared/schema/responses.ts";
import type { StateBackend } from "../../state/storage/backend.ts";
import { createCreditsStore } from "../../state/storage/credits-store.ts";
import { overageOf, type PlannedWindow, planWindows, readQuotaCounts, slotIndex } from "../metering/quota.ts";
import type { WindowSlot } from "../metering/windows.ts";

export async function describeKey(backend: StateBackend, limits: Limits, record: KeyRecord, now: number): Promise<KeyDetails> {
  const windows = planWindows(record, limits, now);
  const counts = await readQuotaCounts(backend, windows, now);
  // Each window is reported in its slot of the view (windows.ts); the pooled month wins over the key's own.
  const count = (slot: WindowSlot) => counts[slotIndex(windows, slot)] ?? 0;
  const find = (slot: WindowSlot): PlannedWindow | undefined => windows[slotIndex(windows, slot)];
  const monthly = find("month");
  const trial = find("trial");
  const overage = overageOf(windows, counts);
  const expired = record.expires_at !== null && Date.parse(record.expires_at) <= now;
  const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
  return {
    id: record.id,
    status: record.status === "revoked" ? "revoked" : expired ? "expired" : "active",
    type: record.type,
    vertical: record.vertical,
    cohort: record.cohort,
    plan: record.plan,
    label: record.label,
    permanent: record.permanent,
    usage: {
      hour: count("hour"),
      day: count("day"),
      month: count("month"),
      ...(trial ? { total_trial: count("trial") } : {}),
      overage_calls: overage,
      overage_usd_micros: overage * limits.overage_per_call_usd_micros,
    },
    quota: {
      hourly_limit: find("hour")!.quota,
      daily_limit: find("day")!.quota,
      monthly_allowance: monthly ? monthly.quota : null,
      monthly_pooled: monthly?.pooled ?? false,
      trial_calls: trial ? trial.quota : null,
      remaining: remainingOf(windows, counts),
      resets: { hour: iso(find("hour")!.resetAt)!, day: iso(find("day")!.resetAt)!, month: iso(monthly?.resetAt) },
    },
    created_at: record.created_at,
    expires_at: record.expires_at,
  };
}

export function remainingOf(windows: PlannedWindow[], counts: number[]) {
  const left = (slot: WindowSlot) => {
    const i = slotIndex(windows, slot);
    return i === -1 ? null : Math.max(0, windows[i]!.quota - counts[i]!);
  };
  return { hour: left("hour") ?? 0, day: left("day") ?? 0, month: left("month"), trial: left("trial") };
}

/** The credit ledger of the key's account (a trial key's agent, or the key itself without either). */
export async function describeCredits(backend: StateBackend, record: KeyRecord) {
  const account = (record.account ?? record.agent_id ?? `key:${record.id}`).toLowerCase();
  const credits = createCreditsStore(backend);
  const [balance, granted, applied] = await Promise.all([credits.balance(account), credits.list(account), credits.listApplied(account)]);
  return {
    account,
    balance_usd_micros: balance,
    balance: formatUsd(balance),
    applies: "next_renewal" as const,
    granted: granted.map((g) => ({
      id: g.id,
      kind: g.kind,
      amount_usd_micros: g.amount_usd_micros,
      reason: g.reason,
      created_at: g.created_at,
    })),
    applied,
  };
}
