/**
 * Cohort progression as an explicit, pure state machine. The state is the active cohort; the
 * only transition is "the next tier opens", taken on a progression evaluation (a seat claimed or
 * member telemetry received) when BOTH hold:
 *   1. every seat of the active cohort is claimed (seats_claimed ≥ member_cap), and
 *   2. the mean Proof-of-Outcome confidence over all submissions is strictly above 0.8.
 * Taking it grants every member of the left cohort that cohort's loyalty credit. The tier order,
 * caps and credits are the catalogue's (content/_catalog/cohorts.yaml); the 0.8 is the spec's.
 */
import type { Cohort, CohortName } from "../../shared/schema/catalog.ts";

/** The spec's "exceeds 80%", in micro-units so the comparison is exact integer arithmetic. */
export const PROGRESSION_CONFIDENCE_MICROS = 800_000;
export const SCORE_MICROS = 1_000_000;

export type ProgressionTrigger = "seat_claimed" | "telemetry_received";

export interface ProgressionSnapshot {
  active: CohortName;
  /** Member accounts that hold a seat in the active cohort. */
  seatsClaimed: number;
  /** Proof-of-Outcome submissions so far and the sum of their scores in micro-units. */
  outcomeSubmissions: number;
  outcomeConfidenceMicros: number;
}

export type StayReason = "seats_open" | "confidence_not_met" | "last_tier";

export type ProgressionDecision =
  | { kind: "stay"; active: CohortName; reason: StayReason }
  | { kind: "advance"; from: CohortName; to: CohortName; loyaltyCreditUsdMicros: number };

/**
 * The transition function: same inputs, same decision, no I/O.
 *
 * @example decideProgression(cohorts, { active: "inaugural", seatsClaimed: 900, outcomeSubmissions: 10, outcomeConfidenceMicros: 8_500_000 })
 *   // → { kind: "advance", from: "inaugural", to: "core", loyaltyCreditUsdMicros: 1_900_000 }
 */
export function decideProgression(cohorts: readonly Cohort[], snapshot: ProgressionSnapshot): ProgressionDecision {
  const index = cohorts.findIndex((c) => c.name === snapshot.active);
  if (index === -1) throw new Error(`Active cohort "${snapshot.active}" is not in the catalogue`);
  const current = cohorts[index]!;
  const next = cohorts[index + 1];
  if (!next) return { kind: "stay", active: current.name, reason: "last_tier" };
  if (snapshot.seatsClaimed < current.member_cap) return { kind: "stay", active: current.name, reason: "seats_open" };
  if (!isConfidenceMet(snapshot.outcomeSubmissions, snapshot.outcomeConfidenceMicros))
    return { kind: "stay", active: current.name, reason: "confidence_not_met" };
  return { kind: "advance", from: current.name, to: next.name, loyaltyCreditUsdMicros: current.loyalty_credit_usd_micros };
}

/** mean > 0.8 ⇔ sum > 0.8 · n, compared in integers; no submissions never meets it. */
export function isConfidenceMet(submissions: number, confidenceMicros: number): boolean {
  return submissions > 0 && confidenceMicros > PROGRESSION_CONFIDENCE_MICROS * submissions;
}

/** A score 0–1 in the micro-units the aggregate is kept in (6 decimals). */
export function toScoreMicros(score: number): number {
  return Math.round(score * SCORE_MICROS);
}

/** The mean confidence as a number, rounded to 6 decimals; null without submissions. */
export function meanConfidence(submissions: number, confidenceMicros: number): number | null {
  return submissions === 0 ? null : Math.round(confidenceMicros / submissions) / SCORE_MICROS;
}

/** How a tier reads for someone looking at it from the active cohort. */
export function cohortStatusOf(
  cohorts: readonly Cohort[],
  active: CohortName,
  name: CohortName,
  seatsClaimed: number,
): "closed" | "open" | "full" | "upcoming" {
  const a = cohorts.findIndex((c) => c.name === active);
  const i = cohorts.findIndex((c) => c.name === name);
  if (i < a) return "closed";
  if (i > a) return "upcoming";
  return seatsClaimed >= cohorts[i]!.member_cap ? "full" : "open";
}
