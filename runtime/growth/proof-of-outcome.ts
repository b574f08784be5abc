/**
 * Member telemetry (Proof-of-Outcome). Only membership keys report it; every submission is kept
 * and counts in the aggregate (the spec's "over all submissions"), which feeds cohort
 * progression, evaluated after each submission.
 */
import { randomUUID } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import type { PresentedKey } from "../access/require-key.ts";
import type { AppDeps } from "../deps.ts";
import { readActiveCohort } from "../cohorts/active-cohort.ts";
import { meanConfidence, toScoreMicros } from "../cohorts/cohort-machine.ts";
import { addOutcomeScore, evaluateProgression, readOutcomeTotals } from "../cohorts/progression.ts";
import type { TelemetryRequest } from "../schema/growth-requests.ts";
import type { OutcomeRecordedSchema } from "../schema/growth-responses.ts";

export interface OutcomeSubmission extends TelemetryRequest {
  id: string;
  key_id: string;
  account: string | null;
  submitted_at: string;
}

export async function submitProofOfOutcome(deps: AppDeps, caller: PresentedKey, body: TelemetryRequest, now: number): Promise<Static<typeof OutcomeRecordedSchema>> {
  const id = `poo_${randomUUID()}`;
  const submittedAt = new Date(now).toISOString();
  const submission: OutcomeSubmission = { ...body, id, key_id: caller.record.id, account: caller.record.account, submitted_at: submittedAt };
  await deps.backend.records.setItem(`poo:sub:${id}`, submission);
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
