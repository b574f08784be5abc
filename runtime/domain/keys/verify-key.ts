/**
 * Is this key usable, for what, and how much is left: shared by `GET /api/verify` and the MCP
 * `verify_key` tool. An unknown, malformed, revoked or expired key is an answer (`valid: false`
 * with a reason), never an error; reading it consumes no quota.
 */
import { isApiError } from "../../shared/errors.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import { resolveKey } from "../access/credentials.ts";
import { keyCoversVertical } from "../access/decide-read.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { planWindows, readQuotaCounts } from "../metering/quota.ts";
import { remainingOf } from "./key-view.ts";

const REASONS = { key_invalid: "unknown", key_revoked: "revoked", key_expired: "expired", key_rerolled: "rerolled" } as const;

export interface KeyVerification {
  body: Record<string, unknown>;
  /** The resolved record of a valid key (for logs), else null. */
  record: KeyRecord | null;
}

export async function verifyKey(deps: DomainDeps, key: string, now: number): Promise<KeyVerification> {
  try {
    const record = await resolveKey(key, deps.keys, now);
    const limits = limitsInForce(deps);
    const windows = planWindows(record, limits, now);
    const counts = await readQuotaCounts(deps.backend, windows, now);
    const verticals = deps.build.current.catalog.verticals
      .filter((v) => v.status === "live" && keyCoversVertical(record, v))
      .map((v) => v.slug);
    return {
      record,
      body: {
        valid: true,
        type: record.type,
        vertical_access: verticals,
        remaining_quota: remainingOf(windows, counts),
        expires_at: record.expires_at,
      },
    };
  } catch (error) {
    if (!isApiError(error) || !(error.code in REASONS)) throw error;
    const malformed = error.code === "key_invalid" && !/^svc_(live|trial)_/.test(key);
    return {
      record: null,
      body: {
        valid: false,
        type: null,
        vertical_access: [],
        remaining_quota: null,
        expires_at: null,
        reason: malformed ? "malformed" : REASONS[error.code as keyof typeof REASONS],
      },
    };
  }
}
