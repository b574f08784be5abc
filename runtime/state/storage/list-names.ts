/**
 * The ordered lists several features share (waitlists, interest, rosters, trial evaluations): their
 * names and counts live here, so a route reads a count without spelling a store key.
 */
import type { StateBackend } from "./backend.ts";

export const waitlistList = (vertical: string) => `waitlist:${vertical}`;
export const interestList = (vertical: string) => `interest:${vertical}`;
/** Every member account that got its first key, once, so it joins one cohort's roster once (seats are counted by `cohorts/seat-ledger.ts`). */
export const SEATS_LIST = "seats:members";
/** The ordered list of member accounts holding a seat in one cohort (its roster, written at issuance). */
export const cohortMembersList = (cohort: string) => `cohort-members:${cohort}`;
/** The trial keys that sent a proof of value; each appears once (growth/proof-of-value.ts). */
export const POV_TRIAL_KEYS_LIST = "pov:trial-keys";

export const countWaitlist = (backend: StateBackend, vertical: string) => backend.countList(waitlistList(vertical));
export const countInterest = (backend: StateBackend, vertical: string) => backend.countList(interestList(vertical));
/** Puts a member account on the seats roster once; `created` only the first time. */
export const joinSeatsRoster = (backend: StateBackend, account: string) => backend.claimPosition(SEATS_LIST, account);
export const countTrialEvaluations = (backend: StateBackend) => backend.countList(POV_TRIAL_KEYS_LIST);
