/**
 * The cohorts' stored state: each cohort's roster and member records, the Proof-of-Outcome
 * submissions and totals, and the once-only marker of a tier's opening. progression.ts decides;
 * this file is the only one that spells these keys.
 */
import type { CohortName } from "../../shared/schema/catalog.ts";
import type { InsertOnceResult, StateBackend } from "../../state/storage/backend.ts";
import { keyPart } from "../../state/storage/key-part.ts";
import { cohortMembersList } from "../../state/storage/list-names.ts";

export interface CohortMember {
  account: string;
  cohort: CohortName;
  joined_at: string;
}

export interface OutcomeTotals {
  submissions: number;
  confidenceMicros: number;
}

/** Puts `account` (lower case) on the cohort's roster once; its member record is written the first time. */
export async function joinCohortRoster(backend: StateBackend, cohort: CohortName, account: string, now: number): Promise<void> {
  const claim = await backend.claimPosition(cohortMembersList(cohort), account);
  if (claim.created) {
    const member: CohortMember = { account, cohort, joined_at: new Date(now).toISOString() };
    await backend.records.setItem(`cohort-member:${cohort}:${keyPart(account)}`, member);
  }
}

export async function listCohortMembers(backend: StateBackend, cohort: CohortName): Promise<CohortMember[]> {
  const keys = await backend.records.getKeys(`cohort-member:${cohort}:`);
  const members = await Promise.all(keys.map((k) => backend.records.getItem<CohortMember>(k)));
  return members.filter((m): m is CohortMember => m !== null);
}

/** The marker of a tier's opening: `created` for the one evaluator that opened it. */
export function markTierOpened(backend: StateBackend, to: CohortName, from: CohortName, now: number): Promise<InsertOnceResult> {
  return backend.insertOnce(`cohort:opened:${to}`, from, null, now);
}

/** Keeps one Proof-of-Outcome submission under its id. */
export async function saveOutcomeSubmission(backend: StateBackend, submission: { id: string }): Promise<void> {
  await backend.records.setItem(`poo:sub:${submission.id}`, submission);
}

/** Adds one Proof-of-Outcome score (micro-units) to the totals. */
export async function addOutcomeScore(backend: StateBackend, scoreMicros: number, now: number): Promise<void> {
  await backend.consume([_counter(OUTCOME_SUBMISSIONS)], 1, now);
  if (scoreMicros > 0) await backend.consume([_counter(OUTCOME_CONFIDENCE)], scoreMicros, now);
}

export async function readOutcomeTotals(backend: StateBackend): Promise<OutcomeTotals> {
  const [submissions, confidenceMicros] = await backend.readCounters([OUTCOME_SUBMISSIONS, OUTCOME_CONFIDENCE], 0);
  return { submissions: submissions!, confidenceMicros: confidenceMicros! };
}

// --- Internal helpers ---

// One hash tag for both totals, so reading them together stays in one Redis Cluster slot.
const OUTCOME_SUBMISSIONS = "poo:{outcome}:submissions";
const OUTCOME_CONFIDENCE = "poo:{outcome}:confidence_micros";

function _counter(key: string) {
  return { key, limit: Number.POSITIVE_INFINITY, expiresAt: Number.MAX_SAFE_INTEGER };
}
