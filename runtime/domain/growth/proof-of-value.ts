/**
 * Proof-of-Value: trial evaluations. One submission per trial key counts: it is stored under the
 * key's hash (a repeat replaces it) and the hash is claimed once in `pov:trial-keys`, which the
 * status object's `community_evidence.trial_evaluations` counts.
 *
 * Who may submit: the caller's X-Service-Key must be the body's `trial_key` itself, or a
 * membership key of the same agent (an agent that subscribed and evaluates its finished trial).
 * The body's `trial_key` must be a trial key issued here and not revoked; it may have expired, so
 * a trial can be evaluated after its 24 hours through a membership key.
 */

import type { Static } from "@sinclair/typebox";
import { apiError } from "../../shared/errors.ts";
import type { PovRequest } from "../../shared/schema/growth-requests.ts";
import type { PovAggregate, PovRecordedSchema } from "../../shared/schema/growth-responses.ts";
import { type KeyRecord, parseKeyString } from "../../shared/schema/keys.ts";
import type { PresentedKey } from "../access/require-key.ts";
import { foldIdentifier } from "../accounts/identifier.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { hashKey } from "../keys/key-secret.ts";
import { createPovStore, type PovSubmission } from "./proof-of-value-store.ts";

export const HIGHLIGHT_TOP = 3;
export const HIGHLIGHT_CRITICAL = 2;
/** Scores from here up can be "top"; below, "critical". */
export const HIGHLIGHT_SPLIT = 0.5;
export const HIGHLIGHT_RULE =
  `Among the current submissions that carry a non-empty review: up to ${HIGHLIGHT_TOP} with the highest confidence_score of those scoring 0.5 or more ("top"), ` +
  `and up to ${HIGHLIGHT_CRITICAL} with the lowest of those scoring below 0.5 ("critical"); ties go to the most recent. Critical reviews are shown so the signal is not cherry-picked.`;

export async function submitProofOfValue(
  deps: DomainDeps,
  caller: PresentedKey,
  body: PovRequest,
  now: number,
): Promise<Static<typeof PovRecordedSchema>> {
  const trial = await _resolveTrialKey(deps, body.trial_key);
  _assertMayReport(caller, body.trial_key, trial);
  const store = createPovStore(deps.backend);
  const earlier = await store.submission(trial.hash);
  const at = new Date(now).toISOString();
  const submission: PovSubmission = {
    trial_key_id: trial.id,
    vertical: trial.vertical,
    confidence_score: body.confidence_score,
    modules_accessed: body.modules_accessed ?? [],
    intent_to_subscribe: body.intent_to_subscribe ?? null,
    review: body.review?.trim() ? body.review : null,
    submitted_at: at,
    first_submitted_at: earlier?.first_submitted_at ?? at,
  };
  await store.saveSubmission(trial.hash, submission);
  const claim = await store.claimEvaluation(trial.hash);
  const evaluations = await store.countEvaluations();
  return { recorded: true, trial_key_id: trial.id, replaced: !claim.created, submitted_at: at, evaluations };
}

export interface PovAggregator {
  read(now: number): Promise<PovAggregate>;
  /** Drops the cached aggregate, so this instance's next read sees a submission just made. */
  invalidate(): void;
}

/**
 * The aggregate reads every current submission (about 15 ms per 1,000), so a public GET must not
 * recompute it per request: one computation is shared by concurrent readers and reused for
 * `ttlMs`; a submission on this instance invalidates it.
 */
export function createPovAggregator(deps: Pick<DomainDeps, "backend">, options: { ttlMs: number }): PovAggregator {
  let cached: { at: number; value: PovAggregate } | null = null;
  let inflight: Promise<PovAggregate> | null = null;
  let generation = 0;
  return {
    async read(now) {
      if (cached && now - cached.at < options.ttlMs && now >= cached.at) return cached.value;
      if (!inflight) {
        const started = generation;
        inflight = aggregateProofOfValue(deps).then(
          (value) => {
            if (started === generation) cached = { at: now, value };
            inflight = null;
            return value;
          },
          (error: unknown) => {
            inflight = null;
            throw error;
          },
        );
      }
      return inflight;
    },
    invalidate() {
      generation++;
      cached = null;
      inflight = null;
    },
  };
}

/** The public signal: computed from the current submission of every trial key. */
export async function aggregateProofOfValue(deps: Pick<DomainDeps, "backend">): Promise<PovAggregate> {
  const subs = await createPovStore(deps.backend).submissions();
  const yes = subs.filter((s) => s.intent_to_subscribe === true).length;
  const no = subs.filter((s) => s.intent_to_subscribe === false).length;
  const sum = subs.reduce((a, s) => a + s.confidence_score, 0);
  return {
    evaluations: subs.length,
    mean_confidence_score: subs.length ? _round(sum / subs.length) : null,
    intent_to_subscribe: { yes, no, unspecified: subs.length - yes - no, share: subs.length ? _round(yes / subs.length) : null },
    highlighted_reviews: _highlight(subs),
    highlight_rule: HIGHLIGHT_RULE,
  };
}

// --- Internal helpers ---

async function _resolveTrialKey(deps: DomainDeps, trialKey: string): Promise<KeyRecord> {
  const invalid = () =>
    apiError("trial_key_invalid", { errors: [{ pointer: "/trial_key", message: "must be a trial key issued by this service" }] });
  if (parseKeyString(trialKey) !== "trial") throw invalid();
  const record = await deps.keys.get(hashKey(trialKey));
  if (record?.type !== "trial" || record.status === "revoked") throw invalid();
  return record;
}

function _assertMayReport(caller: PresentedKey, trialKey: string, trial: KeyRecord): void {
  if (caller.record.type === "trial" && caller.record.hash === trial.hash) return;
  const agent = trial.agent_id ? foldIdentifier(trial.agent_id) : undefined;
  if (
    caller.record.type === "membership" &&
    agent &&
    ((caller.record.agent_id && foldIdentifier(caller.record.agent_id)) === agent ||
      (caller.record.account && foldIdentifier(caller.record.account)) === agent)
  )
    return;
  throw apiError("key_mismatch", {
    detail:
      caller.record.type === "trial"
        ? "trial_key must be the trial key sent in X-Service-Key."
        : "This membership key belongs to another agent than the trial key.",
    errors: [{ pointer: "/trial_key", message: trialKey === "" ? "required" : "not the caller's trial key" }],
  });
}

function _highlight(subs: PovSubmission[]): PovAggregate["highlighted_reviews"] {
  const withReview = subs.filter((s) => s.review !== null);
  const recentFirst = (a: PovSubmission, b: PovSubmission) =>
    b.submitted_at.localeCompare(a.submitted_at) || a.trial_key_id.localeCompare(b.trial_key_id);
  const top = withReview
    .filter((s) => s.confidence_score >= HIGHLIGHT_SPLIT)
    .sort((a, b) => b.confidence_score - a.confidence_score || recentFirst(a, b))
    .slice(0, HIGHLIGHT_TOP);
  const critical = withReview
    .filter((s) => s.confidence_score < HIGHLIGHT_SPLIT)
    .sort((a, b) => a.confidence_score - b.confidence_score || recentFirst(a, b))
    .slice(0, HIGHLIGHT_CRITICAL);
  const view = (s: PovSubmission, highlight: "top" | "critical") => ({
    highlight,
    confidence_score: s.confidence_score,
    intent_to_subscribe: s.intent_to_subscribe,
    review: s.review!,
    vertical: s.vertical,
    submitted_at: s.submitted_at,
  });
  return [...top.map((s) => view(s, "top")), ...critical.map((s) => view(s, "critical"))];
}

function _round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
