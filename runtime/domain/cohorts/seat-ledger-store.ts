/**
 * The seat ledger's counters (seat-ledger.ts decides; this file is the only one that spells their
 * keys): per cohort, the seats taken and returned, and per holder a mark of its take and of its
 * return, all exact counters on the atomic `consume` primitive; and each cohort's base, an
 * insert-once entry `cohort-seats:base:<cohort>`. Every counter carries one hash tag, so each step
 * is one script in one Redis Cluster slot.
 */
import type { CohortName } from "../../shared/schema/catalog.ts";
import type { CounterWindow, StateBackend } from "../../state/storage/backend.ts";
import { keyPart } from "../../state/storage/key-part.ts";
import { cohortMembersList } from "../../state/storage/list-names.ts";

/** What taking a seat did: took one, found the holder's mark (it holds one, or was fenced off), or found every seat taken. */
export type SeatTake = "taken" | "held" | "full";

export interface SeatLedgerStore {
  /**
   * Takes a seat of `cohort` for `holder` and marks the holder, in one atomic step, unless the
   * holder is marked already or `takenLimit` seats were taken.
   */
  take(cohort: CohortName, holder: string, takenLimit: number, now: number): Promise<SeatTake>;
  /** Marks `holder` as if it had taken a seat; true when the mark is placed now (it had taken none). */
  fence(cohort: CohortName, holder: string, now: number): Promise<boolean>;
  /** Counts `holder`'s seat returned, once; true when it was returned now. */
  giveBack(cohort: CohortName, holder: string, now: number): Promise<boolean>;
  /** Seats of `cohort` returned so far. */
  returned(cohort: CohortName, now: number): Promise<number>;
  /** Seats of `cohort` taken and returned so far, read together. */
  counts(cohort: CohortName, now: number): Promise<{ taken: number; returned: number }>;
  /** Members on the cohort's roster. */
  rosterSize(cohort: CohortName): Promise<number>;
  /** Fixes the cohort's base at `roster` unless a base was fixed before; the base fixed. */
  fixBase(cohort: CohortName, roster: number, now: number): Promise<number>;
}

export function createSeatLedgerStore(backend: StateBackend): SeatLedgerStore {
  return {
    async take(cohort, holder, takenLimit, now) {
      const claim = await backend.consume([_window(_holderTaken(cohort, holder), 1), _window(_taken(cohort), takenLimit)], 1, now);
      if (claim.admitted) return "taken";
      return claim.deniedIndex === 0 ? "held" : "full";
    },
    async fence(cohort, holder, now) {
      return (await backend.consume([_window(_holderTaken(cohort, holder), 1)], 1, now)).admitted;
    },
    async giveBack(cohort, holder, now) {
      return (await backend.consume([_window(_holderReturned(cohort, holder), 1), _window(_returned(cohort))], 1, now)).admitted;
    },
    async returned(cohort, now) {
      const [returned] = await backend.readCounters([_returned(cohort)], now);
      return returned!;
    },
    async counts(cohort, now) {
      const [taken, returned] = await backend.readCounters([_taken(cohort), _returned(cohort)], now);
      return { taken: taken!, returned: returned! };
    },
    rosterSize(cohort) {
      return backend.countList(cohortMembersList(cohort));
    },
    async fixBase(cohort, roster, now) {
      return Number((await backend.insertOnce(`cohort-seats:base:${cohort}`, String(roster), null, now)).value);
    },
  };
}

// --- Internal helpers ---

const TAG = "seats:{cohort-seats}";
const FOREVER = Number.MAX_SAFE_INTEGER;
const _taken = (cohort: CohortName) => `${TAG}:${cohort}:taken`;
const _returned = (cohort: CohortName) => `${TAG}:${cohort}:returned`;
const _holderTaken = (cohort: CohortName, holder: string) => `${TAG}:${cohort}:holder:${keyPart(holder)}:taken`;
const _holderReturned = (cohort: CohortName, holder: string) => `${TAG}:${cohort}:holder:${keyPart(holder)}:returned`;

function _window(key: string, limit = Number.POSITIVE_INFINITY): CounterWindow {
  return { key, limit, expiresAt: FOREVER };
}
