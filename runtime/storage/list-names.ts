/** Names of the ordered lists and counters shared by several routes, so they cannot drift apart. */
export const waitlistList = (vertical: string) => `waitlist:${vertical}`;
export const interestList = (vertical: string) => `interest:${vertical}`;
/** Every member account that claimed a seat, in order: the cohort seat counter. */
export const SEATS_LIST = "seats:members";
