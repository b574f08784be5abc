/**
 * The seats of each cohort as exact counters on the atomic `consume` primitive, so a member cap
 * holds under any burst, on one instance or many:
 *
 *   held(cohort) = base + taken − returned
 *
 * - `claimSeat` takes a seat for a holder (a purchase) in one atomic step that checks the cap and
 *   marks the holder together. The same holder asking again (a retry after a crash) finds its
 *   mark and takes nothing more.
 * - `returnSeat` gives a holder's seat back at most once. It first fences the holder: a mark it
 *   takes itself means the holder never claimed here, and now never will (a worker still
 *   reserving after its purchase was released takes no seat behind the release's back).
 * - `base` is what a cohort's roster held before seats were counted here, fixed once by the first
 *   reader; every seat after it goes through the counters.
 *
 * Every counter carries one hash tag, so each step is one script in one Redis Cluster slot.
 */
import type { Cohort, CohortName } from "../../shared/schema/catalog.ts";
import type { CounterWindow, StateBackend } from "../../state/storage/backend.ts";
import { keyPart } from "../../state/storage/key-part.ts";
import { cohortMembersList } from "../../state/storage/list-names.ts";

/** Takes a seat of `cohort` for `holder`; false when every seat is held. */
export async function claimSeat(backend: StateBackend, cohort: Cohort, holder: string, now: number): Promise<boolean> {
  const base = await _base(backend, cohort.name, now);
  let [returned] = await backend.readCounters([_returned(cohort.name)], now);
  for (;;) {
    const claim = await backend.consume(
      [_window(_holderTaken(cohort.name, holder), 1), _window(_taken(cohort.name), cohort.member_cap - base + returned!)],
      1,
      now,
    );
    // Denied on the holder's own mark: it holds its seat already (or was fenced by a release).
    if (claim.admitted || claim.deniedIndex === 0) return true;
    // Full as of the returns read before: a seat given back since may be taken, so ask again then.
    const [again] = await backend.readCounters([_returned(cohort.name)], now);
    if (again === returned) return false;
    returned = again;
  }
}

/** Gives `holder`'s seat of `cohort` back, once; true when a seat was returned now. */
export async function returnSeat(backend: StateBackend, cohort: CohortName, holder: string, now: number): Promise<boolean> {
  const fence = await backend.consume([_window(_holderTaken(cohort, holder), 1)], 1, now);
  if (fence.admitted) return false;
  const back = await backend.consume([_window(_holderReturned(cohort, holder), 1), _window(_returned(cohort))], 1, now);
  return back.admitted;
}

/** Seats of `cohort` held now: its members and the new members' purchases under way. */
export async function readSeatsHeld(backend: StateBackend, cohort: CohortName, now: number): Promise<number> {
  const base = await _base(backend, cohort, now);
  const [taken, returned] = await backend.readCounters([_taken(cohort), _returned(cohort)], now);
  return base + taken! - returned!;
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

/** Once fixed a base never changes, so each process keeps what it read. */
const bases = new WeakMap<StateBackend, Map<CohortName, number>>();

async function _base(backend: StateBackend, cohort: CohortName, now: number): Promise<number> {
  const known = bases.get(backend)?.get(cohort);
  if (known !== undefined) return known;
  // Read before the first claim of any instance (each fixes the base before claiming), so the
  // roster counted here holds no member whose seat the counters also count.
  const roster = await backend.countList(cohortMembersList(cohort));
  const fixed = Number((await backend.insertOnce(`cohort-seats:base:${cohort}`, String(roster), null, now)).value);
  if (!bases.has(backend)) bases.set(backend, new Map());
  bases.get(backend)!.set(cohort, fixed);
  return fixed;
}
