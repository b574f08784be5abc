/**
 * Cohort progression: the step that runs the pure machine (`cohort-machine.ts`) over the stored
 * state (`cohort-store.ts`: rosters, the Proof-of-Outcome totals) and applies its decision.
 *
 * Exactness: the seats are the seat ledger's exact counters (`seat-ledger.ts`: claimed at a new
 * member's reservation, the cap held), the roster of each cohort a `claimPosition` list (one entry
 * per member account, written at issuance), the outcome totals are `consume` counters, the opening of a tier is an `insertOnce` marker and every loyalty
 * credit is a ledger grant with a stable id, so concurrent or repeated evaluations open a tier
 * once and credit each member once.
 */
import type { Logger } from "../../shared/logger.ts";
import { COHORT_NAMES, type CohortName } from "../../shared/schema/catalog.ts";
import type { BuildRef } from "../../state/releases/build-ref.ts";
import type { StateBackend } from "../../state/storage/backend.ts";
import { type CreditsStore, createCreditsStore } from "../../state/storage/credits-store.ts";
import { advanceActiveCohort, readActiveCohort } from "./active-cohort.ts";
import { decideProgression, type ProgressionDecision, type ProgressionTrigger } from "./cohort-machine.ts";
import { joinCohortRoster, listCohortMembers, markTierOpened, readOutcomeTotals } from "./cohort-store.ts";
import { readSeatsHeld } from "./seat-ledger.ts";

export interface CohortDeps {
  backend: StateBackend;
  build: BuildRef;
  logger: Logger;
}

/**
 * A member account got its first key: it joins the roster of `cohort` (its seat was taken when
 * its purchase was reserved, `cohort-seats.ts`), then progression is evaluated.
 * Called when a purchase issues the account's keys (`purchase-keys.ts`).
 */
export async function claimCohortSeat(deps: CohortDeps, seat: { account: string; cohort: CohortName }, now: number): Promise<void> {
  const account = seat.account.toLowerCase();
  await joinCohortRoster(deps.backend, seat.cohort, account, now);
  await evaluateProgression(deps, "seat_claimed", now);
  // A member that joined while a racing claim filled the cohort may have been missed by that
  // transition's member scan: if its cohort is already left, credit it here (same grant id).
  const active = await readActiveCohort(deps.backend);
  if (COHORT_NAMES.indexOf(active) > COHORT_NAMES.indexOf(seat.cohort)) {
    const left = deps.build.current.catalog.cohorts.find((c) => c.name === seat.cohort);
    if (left)
      await _grantLoyalty(createCreditsStore(deps.backend), { account, from: seat.cohort, amount: left.loyalty_credit_usd_micros }, now);
  }
}

/**
 * One progression evaluation: snapshot the state, ask the machine, and when it says advance,
 * open the next tier (once) and credit every member of the left cohort (once each).
 */
export async function evaluateProgression(deps: CohortDeps, trigger: ProgressionTrigger, now: number): Promise<ProgressionDecision> {
  const cohorts = deps.build.current.catalog.cohorts;
  const active = await readActiveCohort(deps.backend);
  const [seatsClaimed, totals] = await Promise.all([readSeatsHeld(deps.backend, active, now), readOutcomeTotals(deps.backend)]);
  const decision = decideProgression(cohorts, {
    active,
    seatsClaimed,
    outcomeSubmissions: totals.submissions,
    outcomeConfidenceMicros: totals.confidenceMicros,
  });
  if (decision.kind === "stay") return decision;

  // 1. Open the tier once; a racing evaluator sees the marker and only helps finish step 2–3.
  const opened = await markTierOpened(deps.backend, decision.to, decision.from, now);
  // 2. Move the active cohort forward (never backward).
  await advanceActiveCohort(deps.backend, decision.to);
  // 3. Loyalty credit for every member of the left cohort, idempotent per (cohort, account).
  const credits = createCreditsStore(deps.backend);
  const members = await listCohortMembers(deps.backend, decision.from);
  for (const member of members)
    await _grantLoyalty(credits, { account: member.account, from: decision.from, amount: decision.loyaltyCreditUsdMicros }, now);
  if (opened.created)
    deps.logger.info("cohort opened", { from: decision.from, to: decision.to, trigger, members_credited: members.length });
  return decision;
}

// --- Internal helpers ---

/** One loyalty credit per (left cohort, account): the grant id makes every repeat a no-op. */
async function _grantLoyalty(
  credits: CreditsStore,
  input: { account: string; from: CohortName; amount: number },
  now: number,
): Promise<void> {
  await credits.grant(
    {
      grantId: `loyalty:${input.from}:${input.account}`,
      account: input.account,
      kind: "loyalty",
      amountUsdMicros: input.amount,
      reason: `loyalty: the tier after ${input.from} opened; 10% off the next monthly cycle for ${input.from} members`,
    },
    now,
  );
}
