/** The cohort new members join: stored state, `inaugural` until progression opens the next tier. */
import type { CohortName } from "../schema/catalog.ts";
import type { StateBackend } from "../storage/backend.ts";

export const ACTIVE_COHORT_KEY = "cohort:active";

export async function readActiveCohort(backend: StateBackend): Promise<CohortName> {
  return ((await backend.records.getItem<CohortName>(ACTIVE_COHORT_KEY)) ?? "inaugural") as CohortName;
}
