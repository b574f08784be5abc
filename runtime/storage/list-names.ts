/** Names of the ordered lists and counters shared by several routes, so they cannot drift apart. */
export const waitlistList = (vertical: string) => `waitlist:${vertical}`;
export const interestList = (vertical: string) => `interest:${vertical}`;
/** Every member account that got its first key, once, so it joins one cohort's roster once (seats are counted by `cohorts/seat-ledger.ts`). */
export const SEATS_LIST = "seats:members";
/** The ordered list of member accounts holding a seat in one cohort (its roster, written at issuance). */
export const cohortMembersList = (cohort: string) => `cohort-members:${cohort}`;
