/**
 * The demand signals' stored state: each vertical's ordered list of signalling members
 * (`interest:<vertical>`, list-names.ts), each member's signal, `interest:signal:<vertical>:<member>`,
 * and the slugs proposed outside the catalogue, `interest:proposed:<slug>`, with the counter of
 * proposals that caps them. interest.ts decides; this file is the only one that spells these keys.
 */
import type { StateBackend } from "../../state/storage/backend.ts";
import { keyPart } from "../../state/storage/key-part.ts";
import { countInterest, interestList } from "../../state/storage/list-names.ts";

export interface InterestSignal {
  vertical: string;
  agent_id: string | null;
  contact: string | null;
  use_case: string | null;
  at: string;
}

export interface ProposedVertical {
  slug: string;
  at: string;
}

export interface InterestStore {
  /** Whether `member` (`agent:<id>`, `contact:<email>` or `anon:<uuid>`) signalled the vertical before. */
  hasSignal(vertical: string, member: string): Promise<boolean>;
  /** Counts `member` on the vertical's list once; `created` only the first time. */
  claimSignal(vertical: string, member: string): Promise<{ position: number; created: boolean }>;
  saveSignal(member: string, signal: InterestSignal): Promise<void>;
  /** Members that signalled the vertical. */
  countSignals(vertical: string): Promise<number>;
  isProposed(slug: string): Promise<boolean>;
  /** Takes one of `max` places for proposed slugs, atomically; false when all are taken. */
  claimProposalPlace(max: number, now: number): Promise<boolean>;
  saveProposal(proposal: ProposedVertical): Promise<void>;
  /** Every proposed slug, in no particular order. */
  proposals(): Promise<ProposedVertical[]>;
}

export function createInterestStore(backend: StateBackend): InterestStore {
  return {
    hasSignal(vertical, member) {
      return backend.records.hasItem(_signalKey(vertical, member));
    },
    claimSignal(vertical, member) {
      return backend.claimPosition(interestList(vertical), member);
    },
    async saveSignal(member, signal) {
      await backend.records.setItem(_signalKey(signal.vertical, member), signal);
    },
    countSignals(vertical) {
      return countInterest(backend, vertical);
    },
    isProposed(slug) {
      return backend.records.hasItem(PROPOSED_PREFIX + slug);
    },
    async claimProposalPlace(max, now) {
      const slot = await backend.consume([{ key: PROPOSED_COUNTER, limit: max, expiresAt: Number.MAX_SAFE_INTEGER }], 1, now);
      return slot.admitted;
    },
    async saveProposal(proposal) {
      await backend.records.setItem(PROPOSED_PREFIX + proposal.slug, proposal);
    },
    async proposals() {
      const keys = await backend.records.getKeys(PROPOSED_PREFIX);
      const items = await Promise.all(keys.map((k) => backend.records.getItem<ProposedVertical>(k)));
      return items.filter((i): i is ProposedVertical => i !== null);
    },
  };
}

// --- Internal helpers ---

const PROPOSED_PREFIX = "interest:proposed:";
const PROPOSED_COUNTER = "interest:proposed-count";

function _signalKey(vertical: string, member: string): string {
  return `interest:signal:${vertical}:${keyPart(member)}`;
}
