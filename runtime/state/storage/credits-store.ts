/**
 * The credit ledger: referral and loyalty credits per member account, in integer micro-dollars,
 * owed against the account's next renewal. Shared with checkout/pricing, which reads
 * `balance(account)` and calls `markApplied` when a renewal consumes credit.
 *
 * - Every grant carries a `grantId`; granting the same id twice records it once (first writer
 *   wins, via `insertOnce`), so retried transitions and requests never double-credit.
 * - The balance is two exact counters (granted, applied) on the atomic `consume` primitive, so
 *   concurrent grants never lose an increment: balance = granted − applied.
 * - Accounts are the key records' `account` (agent_id or contact, lower-cased), or `key:<id>`
 *   for a key issued without one.
 */
import type { StateBackend } from "./backend.ts";
import { accountPart, keyPart } from "./key-part.ts";

export type CreditKind = "referral" | "loyalty";

export interface CreditEntry {
  id: string;
  account: string;
  kind: CreditKind;
  amount_usd_micros: number;
  /** Why, in words a member can read (e.g. "referral of agent-42", "loyalty: core opened"). */
  reason: string;
  created_at: string;
}

export interface CreditsStore {
  /** Records a credit once per `grantId`; `created: false` when that id was granted before. */
  grant(
    input: { grantId: string; account: string; kind: CreditKind; amountUsdMicros: number; reason: string },
    now: number,
  ): Promise<{ created: boolean }>;
  /** Credit owed to the account and not yet applied to a renewal. */
  balance(account: string): Promise<number>;
  /** Consumes credit at a renewal; callers apply at most `balance(account)`. */
  markApplied(account: string, amountUsdMicros: number, now: number): Promise<void>;
  /**
   * Takes the credit one renewal invoice gets: at most `amountDueMicros`, at most the balance, and
   * once per invoice however often it is asked (a retried webhook gets the amount already taken).
   */
  takeForInvoice(account: string, invoiceId: string, amountDueMicros: number, now: number): Promise<number>;
  list(account: string): Promise<CreditEntry[]>;
  /** Credit applied to renewal invoices, newest last. */
  listApplied(account: string): Promise<AppliedCredit[]>;
}

export interface AppliedCredit {
  invoice: string;
  amount_usd_micros: number;
  applied_at: string;
}

export function createCreditsStore(backend: StateBackend): CreditsStore {
  return {
    async grant(input, now) {
      if (!Number.isInteger(input.amountUsdMicros) || input.amountUsdMicros < 0)
        throw new Error("credit amounts are non-negative integer micro-dollars");
      const account = accountPart(input.account);
      const once = await backend.insertOnce(`credits:grant:${keyPart(input.grantId)}`, account, null, now);
      if (!once.created) return { created: false };
      const entry: CreditEntry = {
        id: input.grantId,
        account: input.account.toLowerCase(),
        kind: input.kind,
        amount_usd_micros: input.amountUsdMicros,
        reason: input.reason,
        created_at: new Date(now).toISOString(),
      };
      await backend.records.setItem(`credits:entry:${account}:${keyPart(input.grantId)}`, entry);
      if (input.amountUsdMicros > 0) await backend.consume([_counter(account, "granted")], input.amountUsdMicros, now);
      return { created: true };
    },
    async balance(account) {
      const key = accountPart(account);
      const [granted, applied] = await backend.readCounters([_counter(key, "granted").key, _counter(key, "applied").key], 0);
      return Math.max(0, granted! - applied!);
    },
    async markApplied(account, amountUsdMicros, now) {
      if (amountUsdMicros > 0) await backend.consume([_counter(accountPart(account), "applied")], amountUsdMicros, now);
    },
    async takeForInvoice(account, invoiceId, amountDueMicros, now) {
      const key = accountPart(account);
      // The per-invoice counter makes the take idempotent: consume applies one cost to every
      // window or to none, and this window admits its amount once, so a second take of the same
      // invoice is refused as a whole and the applied total never moves twice.
      const perInvoice = `credits:{c:${key}}:invoice:${keyPart(invoiceId)}`;
      const [already] = await backend.readCounters([perInvoice], 0);
      if (already! > 0) return already!;
      const [granted, applied] = await backend.readCounters([_counter(key, "granted").key, _counter(key, "applied").key], 0);
      const amount = Math.min(Math.max(0, granted! - applied!), Math.max(0, amountDueMicros));
      if (amount === 0) return 0;
      const taken = await backend.consume(
        [
          { ..._counter(key, "applied"), limit: granted! },
          { key: perInvoice, limit: amount, expiresAt: Number.MAX_SAFE_INTEGER },
        ],
        amount,
        now,
      );
      if (!taken.admitted) {
        const [raced] = await backend.readCounters([perInvoice], 0);
        return raced!;
      }
      await backend.records.setItem(`credits:applied:${key}:${keyPart(invoiceId)}`, {
        invoice: invoiceId,
        amount_usd_micros: amount,
        applied_at: new Date(now).toISOString(),
      } satisfies AppliedCredit);
      return amount;
    },
    async listApplied(account) {
      const keys = await backend.records.getKeys(`credits:applied:${accountPart(account)}:`);
      const entries = await Promise.all(keys.map((k) => backend.records.getItem<AppliedCredit>(k)));
      return entries.filter((e): e is AppliedCredit => e !== null).sort((a, b) => a.applied_at.localeCompare(b.applied_at));
    },
    async list(account) {
      const prefix = `credits:entry:${accountPart(account)}:`;
      const keys = await backend.records.getKeys(prefix);
      const entries = await Promise.all(keys.map((k) => backend.records.getItem<CreditEntry>(k)));
      return entries
        .filter((e): e is CreditEntry => e !== null)
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    },
  };
}

// --- Internal helpers ---

/** Both counters of an account share a hash tag, so one read stays in one Redis Cluster slot. */
function _counter(accountKey: string, side: "granted" | "applied") {
  return { key: `credits:{c:${accountKey}}:${side}`, limit: Number.POSITIVE_INFINITY, expiresAt: Number.MAX_SAFE_INTEGER };
}
