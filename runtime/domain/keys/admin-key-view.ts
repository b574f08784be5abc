/** The operator's view of a key: what `describeKey` shows the holder, plus agent, source and revocation. */

import type { AdminKeyView } from "../../shared/schema/admin-keys.ts";
import type { Limits } from "../../shared/schema/catalog.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { StateBackend } from "../../state/storage/backend.ts";
import { describeKey } from "./key-view.ts";

export async function describeKeyForAdmin(backend: StateBackend, limits: Limits, record: KeyRecord, now: number): Promise<AdminKeyView> {
  return {
    ...(await describeKey(backend, limits, record, now)),
    agent_id: record.agent_id,
    source: record.source,
    revoked_at: record.revoked_at,
  };
}
