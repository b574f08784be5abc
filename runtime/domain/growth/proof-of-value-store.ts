/**
 * The Proof-of-Value submissions: one per trial key, `pov:sub:<key hash>` (a repeat replaces it),
 * and the list of trial keys that sent one (`pov:trial-keys`, list-names.ts), each once.
 * proof-of-value.ts decides; this file is the only one that spells these keys.
 */
import type { StateBackend } from "../../state/storage/backend.ts";
import { countTrialEvaluations, POV_TRIAL_KEYS_LIST } from "../../state/storage/list-names.ts";

export interface PovSubmission {
  trial_key_id: string;
  vertical: string;
  confidence_score: number;
  modules_accessed: string[];
  intent_to_subscribe: boolean | null;
  review: string | null;
  submitted_at: string;
  first_submitted_at: string;
}

export interface PovStore {
  /** The current submission of the trial key with hash `hash`. */
  submission(hash: string): Promise<PovSubmission | null>;
  /** Keeps `submission` as the trial key's current one, in place of any earlier. */
  saveSubmission(hash: string, submission: PovSubmission): Promise<void>;
  /** Lists the trial key among the evaluations once; `created` only the first time. */
  claimEvaluation(hash: string): Promise<{ position: number; created: boolean }>;
  /** Trial keys that sent a submission. */
  countEvaluations(): Promise<number>;
  /** The current submission of every trial key, in no particular order. */
  submissions(): Promise<PovSubmission[]>;
}

export function createPovStore(backend: StateBackend): PovStore {
  return {
    async submission(hash) {
      return (await backend.records.getItem<PovSubmission>(_submissionKey(hash))) ?? null;
    },
    async saveSubmission(hash, submission) {
      await backend.records.setItem(_submissionKey(hash), submission);
    },
    claimEvaluation(hash) {
      return backend.claimPosition(POV_TRIAL_KEYS_LIST, hash);
    },
    countEvaluations() {
      return countTrialEvaluations(backend);
    },
    async submissions() {
      const keys = await backend.records.getKeys(SUBMISSION_PREFIX);
      const subs = await Promise.all(keys.map((k) => backend.records.getItem<PovSubmission>(k)));
      return subs.filter((s): s is PovSubmission => s !== null);
    },
  };
}

// --- Internal helpers ---

const SUBMISSION_PREFIX = "pov:sub:";

function _submissionKey(hash: string): string {
  return SUBMISSION_PREFIX + hash;
}
