/**
 * The referrals' stored state; referral.ts decides, this file is the only one that spells these keys:
 * - `referral:agent:<agent>`, insert-once: the referral of an agent (its id), or `none` once the
 *   agent became a member unreferred, so nobody can refer it afterwards;
 * - `referral:log:<id>`, the referral's record;
 * - `referral-cap:<account>:<cycle>`, the referrer's credited referrals in one billing cycle, and
 *   `referral-counted:<id>`, the mark that a referral was counted against that cap.
 */
import type { Static } from "@sinclair/typebox";
import type { ReferralLoggedSchema } from "../../shared/schema/growth-responses.ts";
import type { StateBackend } from "../../state/storage/backend.ts";
import { keyPart } from "../../state/storage/key-part.ts";

/** A referral as logged, with the referrer's ledger account (never shown). */
export type ReferralEntry = Static<typeof ReferralLoggedSchema>["referral"] & { account: string };

/** What counting a referral against its referrer's cycle cap did. */
export type CapCount = "counted" | "counted_before" | "cap_reached";

export interface ReferralStore {
  /** Marks `agent` as referred by referral `id`, once: false when it was referred (or closed) before. */
  claimReferred(agent: string, id: string, now: number): Promise<boolean>;
  /**
   * Closes `agent` to referrals from now on; the id of the referral that came first, or null when
   * nobody referred it.
   */
  closeReferrals(agent: string, now: number): Promise<string | null>;
  entry(id: string): Promise<ReferralEntry | null>;
  saveEntry(entry: ReferralEntry): Promise<void>;
  /**
   * Counts the referral against its referrer's cycle cap, at most once however often it is asked:
   * the cap and the referral's own mark move together or not at all.
   */
  countAgainstCap(entry: ReferralEntry, cycle: { id: string; keepUntil: number; limit: number }, now: number): Promise<CapCount>;
  /** Whether the referral was counted against a cap already. */
  counted(id: string): Promise<boolean>;
  /** Referrals of `account` counted against the cap of `cycle`, as of `now`. */
  countedInCycle(account: string, cycle: string, now: number): Promise<number>;
}

/** The id the credit of referral `id` is granted under (the credit ledger keys it once per grant). */
export function referralGrantId(id: string): string {
  return `referral:${id}`;
}

export function createReferralStore(backend: StateBackend): ReferralStore {
  return {
    async claimReferred(agent, id, now) {
      return (await backend.insertOnce(_agentKey(agent), id, null, now)).created;
    },
    async closeReferrals(agent, now) {
      const pointer = await backend.insertOnce(_agentKey(agent), NOBODY, null, now);
      return pointer.created || pointer.value === NOBODY ? null : pointer.value;
    },
    async entry(id) {
      return (await backend.records.getItem<ReferralEntry>(_logKey(id))) ?? null;
    },
    async saveEntry(entry) {
      await backend.records.setItem(_logKey(entry.id), entry);
    },
    async countAgainstCap(entry, cycle, now) {
      const cap = await backend.consume(
        [
          { key: _capKey(entry.account, cycle.id), limit: cycle.limit, expiresAt: cycle.keepUntil },
          { key: _countedKey(entry.id), limit: 1, expiresAt: Number.MAX_SAFE_INTEGER },
        ],
        1,
        now,
      );
      if (cap.admitted) return "counted";
      return cap.deniedIndex === 1 ? "counted_before" : "cap_reached";
    },
    async counted(id) {
      const [counted] = await backend.readCounters([_countedKey(id)], 0);
      return counted! > 0;
    },
    async countedInCycle(account, cycle, now) {
      const [credited] = await backend.readCounters([_capKey(account, cycle)], now);
      return credited!;
    },
  };
}

// --- Internal helpers ---

/** The pointer's value for an agent nobody referred. */
const NOBODY = "none";

function _agentKey(agent: string): string {
  return `referral:agent:${keyPart(agent)}`;
}

function _logKey(id: string): string {
  return `referral:log:${id}`;
}

function _capKey(account: string, cycle: string): string {
  return `referral-cap:${keyPart(account)}:${cycle}`;
}

function _countedKey(id: string): string {
  return `referral-counted:${id}`;
}
