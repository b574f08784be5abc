/**
 * The paid verticals' waitlists: each vertical's ordered list of members (`waitlist:<vertical>`,
 * list-names.ts) and each member's entry, `waitlist:entry:<vertical>:<member>`. waitlist.ts decides;
 * this file is the only one that spells the entry keys.
 */
import type { StateBackend } from "../../state/storage/backend.ts";
import { keyPart } from "../../state/storage/key-part.ts";
import { countWaitlist, waitlistList } from "../../state/storage/list-names.ts";

export interface WaitlistEntry {
  vertical: string;
  agent_id: string | null;
  contact: string | null;
  position: number;
  joined_at: string;
}

export interface WaitlistStore {
  /** Whether `member` (`agent:<id>` or `contact:<email>`) joined the vertical's waitlist before. */
  hasEntry(vertical: string, member: string): Promise<boolean>;
  /** Puts `member` on the vertical's waitlist once; its position is stable on repeats. */
  claimPosition(vertical: string, member: string): Promise<{ position: number; created: boolean }>;
  saveEntry(member: string, entry: WaitlistEntry): Promise<void>;
  /** Members on the vertical's waitlist. */
  count(vertical: string): Promise<number>;
}

export function createWaitlistStore(backend: StateBackend): WaitlistStore {
  return {
    hasEntry(vertical, member) {
      return backend.records.hasItem(_entryKey(vertical, member));
    },
    claimPosition(vertical, member) {
      return backend.claimPosition(waitlistList(vertical), member);
    },
    async saveEntry(member, entry) {
      await backend.records.setItem(_entryKey(entry.vertical, member), entry);
    },
    count(vertical) {
      return countWaitlist(backend, vertical);
    },
  };
}

// --- Internal helpers ---

function _entryKey(vertical: string, member: string): string {
  return `waitlist:entry:${vertical}:${keyPart(member)}`;
}
