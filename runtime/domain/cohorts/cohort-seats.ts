/**
 * Which cohort a purchase buys in, and the seat a new member takes (`seat-ledger.ts` counts them).
 *
 * - A member (an account that holds a membership) buys in its own cohort, whichever cohort is
 *   open to new members: its cohort's price, graduated where that cohort is, is grandfathered,
 *   and its new keys are of its cohort. It takes no new seat.
 * - A new member takes a seat of the cohort open to new members when its purchase is reserved,
 *   before any payment (consume first, then act), and gives it back when the purchase is
 *   released. When every seat is held, the progression is evaluated (the tier may be due to
 *   open); if the next tier stays closed, the purchase is refused 409 `cohort_full`, uncharged.
 */

import { type ApiError, apiError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/logger.ts";
import { COHORT_NAMES, type Cohort, type CohortName } from "../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { BuildRef } from "../../state/releases/build-ref.ts";
import type { StateBackend } from "../../state/storage/backend.ts";
import type { KeysStore } from "../../state/storage/keys-store.ts";
import { readActiveCohort } from "./active-cohort.ts";
import { evaluateProgression } from "./progression.ts";
import { claimSeat, readSeatsHeld, returnSeat } from "./seat-ledger.ts";

export interface SeatDeps {
  backend: StateBackend;
  build: BuildRef;
  logger: Logger;
  keys: KeysStore;
}

/** The cohort of an account's membership: that of its first membership key; null for none. */
export function cohortOfKeys(keys: readonly KeyRecord[]): CohortName | null {
  let first: KeyRecord | null = null;
  for (const key of keys) if (key.type === "membership" && (first === null || key.created_at < first.created_at)) first = key;
  return first?.cohort ?? null;
}

/**
 * The cohort a purchase (`holder`) for `account` buys in: the member's own, or, for a new member,
 * the open cohort, whose seat it takes now. Throws 409 `cohort_full` when none is free.
 */
export async function seatPurchase(deps: SeatDeps, input: { account: string | null; holder: string }, now: number): Promise<CohortName> {
  // Keys issued to no account (admin) belong to no member: the open cohort, no seat.
  if (input.account === null) return readActiveCohort(deps.backend);
  const own = cohortOfKeys(await deps.keys.listByAccount(input.account));
  if (own !== null) return own;
  return _openCohort(deps, now, (cohort) => claimSeat(deps.backend, cohort, input.holder, now));
}

/** The cohort a new member would join now, for a quote (takes nothing); 409 `cohort_full` when none is free. */
export function cohortForNewMember(deps: SeatDeps, now: number): Promise<CohortName> {
  return _openCohort(deps, now, async (cohort) => (await readSeatsHeld(deps.backend, cohort.name, now)) < cohort.member_cap);
}

/**
 * A paid purchase whose reservation was given back gets its seat again, in the cohort it was
 * priced in (never another); false when that cohort has no seat left. `holder` must differ from
 * the released one, whose mark stays fenced.
 */
export async function reclaimSeat(deps: SeatDeps, input: { account: string | null; cohort: CohortName; holder: string }, now: number) {
  if (input.account === null || cohortOfKeys(await deps.keys.listByAccount(input.account)) !== null) return true;
  return claimSeat(deps.backend, _cohort(deps, input.cohort), input.holder, now);
}

/** Gives back the seat `holder` took, in whichever cohort it took it (once; nothing if it took none). */
export async function releaseSeat(deps: Pick<SeatDeps, "backend">, holder: string, now: number): Promise<void> {
  const active = COHORT_NAMES.indexOf(await readActiveCohort(deps.backend));
  // A seat is only ever taken in the open cohort, which never moves back.
  for (const cohort of COHORT_NAMES.slice(0, active + 1)) await returnSeat(deps.backend, cohort, holder, now);
}

// --- Internal helpers ---

async function _openCohort(deps: SeatDeps, now: number, take: (cohort: Cohort) => Promise<boolean>): Promise<CohortName> {
  let active = await readActiveCohort(deps.backend);
  for (;;) {
    if (await take(_cohort(deps, active))) return active;
    // Every seat is held: the tier may be due to open (its last seat taken by a purchase not yet issued).
    await evaluateProgression(deps, "seat_claimed", now);
    const next = await readActiveCohort(deps.backend);
    if (next === active) throw await _cohortFull(deps, _cohort(deps, active), now);
    active = next;
  }
}

function _cohort(deps: Pick<SeatDeps, "build">, name: CohortName): Cohort {
  const cohort = deps.build.current.catalog.cohorts.find((c) => c.name === name);
  if (!cohort) throw new Error(`cohort ${name} is not in the catalogue`);
  return cohort;
}

async function _cohortFull(deps: SeatDeps, cohort: Cohort, now: number): Promise<ApiError> {
  return apiError("cohort_full", {
    detail: `All ${cohort.member_cap} seats of the ${cohort.name} cohort are claimed and the next tier is not open yet (it opens once the mean Proof-of-Outcome confidence exceeds 0.8). Nothing was charged.`,
    extra: {
      cohort: cohort.name,
      member_cap: cohort.member_cap,
      seats_claimed: await readSeatsHeld(deps.backend, cohort.name, now),
      waitlist: "/api/waitlist",
    },
  });
}
