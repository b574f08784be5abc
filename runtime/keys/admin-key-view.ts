/** The operator's view of a key: what `describeKey` shows the holder, plus agent, source and revocation. */
import type { Limits } from "../schema/catalog.ts";
import type { AdminKeyView } from "../schema/admin-keys.ts";
import type { KeyRecord } from "../schema/keys.ts";
import type { StateBackend } from "../storage/backend.ts";
import { describeKey } from "./key-view.ts";

export async function describeKeyForAdmin(backend: StateBackend, limits: Limits, record: KeyRecord, now: number): Promise<AdminKeyView> {
  return {
    ...(await describeKey(backend, limits, record, now)),
    agent_id: record.agent_id,
    source: record.source,
    revoked_at: record.revoked_at,
  };
}
