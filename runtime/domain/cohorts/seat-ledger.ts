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
 * The counters are kept by seat-ledger-store.ts.
 */
import type { Cohort, CohortName } from "../../shared/schema/catalog.ts";
import type { StateBackend } from "../../state/storage/backend.ts";
import { createSeatLedgerStore } from "./seat-ledger-store.ts";

/** Takes a seat of `cohort` for `holder`; false when every seat is held. */
export async function claimSeat(backend: StateBackend, cohort: Cohort, holder: string, now: number): Promise<boolean> {
  const store = createSeatLedgerStore(backend);
  const base = await _base(backend, cohort.name, now);
  let returned = await store.returned(cohort.name, now);
  for (;;) {
    // The holder's mark and the seat are taken together; a mark already there means it holds its seat (or was fenced by a release).
    const take = await store.take(cohort.name, holder, cohort.member_cap - base + returned, now);
    if (take !== "full") return true;
    // Full as of the returns read before: a seat given back since may be taken, so ask again then.
    const again = await store.returned(cohort.name, now);
    if (again === returned) return false;
    returned = again;
  }
}

/** Gives `holder`'s seat of `cohort` back, once; true when a seat was returned now. */
export async function returnSeat(backend: StateBackend, cohort: CohortName, holder: string, now: number): Promise<boolean> {
  const store = createSeatLedgerStore(backend);
  // A holder that never claimed is fenced off for good, and has nothing to give back.
  if (await store.fence(cohort, holder, now)) return false;
  return store.giveBack(cohort, holder, now);
}

/** Seats of `cohort` held now: its members and the new members' purchases under way. */
export async function readSeatsHeld(backend: StateBackend, cohort: CohortName, now: number): Promise<number> {
  const base = await _base(backend, cohort, now);
  const { taken, returned } = await createSeatLedgerStore(backend).counts(cohort, now);
  return base + taken - returned;
}

// --- Internal helpers ---

/** Once fixed a base never changes, so each process keeps what it read. */
const bases = new WeakMap<StateBackend, Map<CohortName, number>>();

async function _base(backend: StateBackend, cohort: CohortName, now: number): Promise<number> {
  const known = bases.get(backend)?.get(cohort);
  if (known !== undefined) return known;
  // Read before the first claim of any instance (each fixes the base before claiming), so the
  // roster counted here holds no member whose seat the counters also count.
  const store = createSeatLedgerStore(backend);
  const fixed = await store.fixBase(cohort, await store.rosterSize(cohort), now);
  if (!bases.has(backend)) bases.set(backend, new Map());
  bases.get(backend)!.set(cohort, fixed);
  return fixed;
}
