/** An active membership key record of the travel vertical, for store and metering tests that need one without issuing it. */
import type { KeyRecord } from "../../runtime/shared/schema/keys.ts";

export function membershipRecord(id: string, hash = id.repeat(4)): KeyRecord {
  return {
    id,
    hash,
    type: "membership",
    vertical: "travel",
    cohort: "core",
    plan: "standard",
    label: null,
    agent_id: null,
    account: null,
    permanent: false,
    status: "active",
    source: "admin",
    created_at: "2026-11-01T00:00:00Z",
    expires_at: null,
    revoked_at: null,
  };
}
