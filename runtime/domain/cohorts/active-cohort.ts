/** The cohort new members join: stored state, `inaugural` until progression opens the next tier. */
import { COHORT_NAMES, type CohortName } from "../../shared/schema/catalog.ts";
import type { StateBackend } from "../../state/storage/backend.ts";

export const ACTIVE_COHORT_KEY = "cohort:active";

export async function readActiveCohort(backend: StateBackend): Promise<CohortName> {
  return ((await backend.records.getItem<CohortName>(ACTIVE_COHORT_KEY)) ?? "inaugural") as CohortName;
}

/**
 * Moves the active cohort forward to `to`, never backward: a slow evaluator of an earlier
 * transition must not undo a later one. Only cohort progression calls this.
 */
export async function advanceActiveCohort(backend: StateBackend, to: CohortName): Promise<void> {
  const current = await readActiveCohort(backend);
  if (COHORT_NAMES.indexOf(current) < COHORT_NAMES.indexOf(to)) await backend.records.setItem(ACTIVE_COHORT_KEY, to);
}
