/**
 * Member telemetry (Proof-of-Outcome). Only membership keys report it; every accepted submission
 * is kept and counts in the aggregate (the spec's "over all submissions"), which feeds cohort
 * progression, evaluated after each submission.
 *
 * Stuffing: one key may submit OUTCOMES_PER_KEY_DAY times per UTC day. Beyond that the submission
 * is refused (429 `outcome_limit_reached`, Retry-After to the next UTC midnight) rather than
 * silently left out of the mean, so an agent learns at once that it was not counted. The day's
 * count is a `consume` window, checked and incremented in one atomic step on either backend, so
 * concurrent submissions cannot slip past the cap; a refused one consumes nothing.
 */
import { randomUUID } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import type { TelemetryRequest } from "../../shared/schema/growth-requests.ts";
import type { OutcomeRecordedSchema } from "../../shared/schema/growth-responses.ts";
import type { PresentedKey } from "../access/require-key.ts";
import { readActiveCohort } from "../cohorts/active-cohort.ts";
import { meanConfidence, toScoreMicros } from "../cohorts/cohort-machine.ts";
import { addOutcomeScore, readOutcomeTotals, saveOutcomeSubmission } from "../cohorts/cohort-store.ts";
import { evaluateProgression } from "../cohorts/progression.ts";
import type { DomainDeps } from "../domain-deps.ts";

export interface OutcomeSubmission extends TelemetryRequest {
  id: string;
  key_id: string;
  account: string | null;
  submitted_at: string;
}

export async function submitProofOfOutcome(
  deps: DomainDeps,
  caller: PresentedKey,
  body: TelemetryRequest,
  now: number,
): Promise<Static<typeof OutcomeRecordedSchema>> {
  const limit = deps.config.outcomesPerKeyDay;
  await deps.shared.limits.assert("outcomes", caller.record.id, limit, now, {
    code: "outcome_limit_reached",
    detail: `This key has made its ${limit} Proof-of-Outcome submissions for today (UTC); this one was not recorded and the aggregate did not change.`,
  });
  const id = `poo_${randomUUID()}`;
  const submittedAt = new Date(now).toISOString();
  const submission: OutcomeSubmission = {
    ...body,
    id,
    key_id: caller.record.id,
    account: caller.record.account,
    submitted_at: submittedAt,
  };
  await saveOutcomeSubmission(deps.backend, submission);
  await addOutcomeScore(deps.backend, toScoreMicros(body.confidence_score), now);
  const decision = await evaluateProgression(deps, "telemetry_received", now);
  const [totals, active] = await Promise.all([readOutcomeTotals(deps.backend), readActiveCohort(deps.backend)]);
  return {
    recorded: true,
    id,
    kind: "proof_of_outcome",
    submitted_at: submittedAt,
    aggregate: { submissions: totals.submissions, mean_confidence_score: meanConfidence(totals.submissions, totals.confidenceMicros) },
    cohort: { active_cohort: active, opened: decision.kind === "advance" ? decision.to : null },
  };
}
