/**
 * For endpoints whose spec says "key header required" (PoV, member telemetry, referral): the key
 * in X-Service-Key (or `Authorization: Bearer svc_…`), resolved to an active record. No key is
 * 401 `key_missing`; a bad key 401 `key_*`; with `membership: true` a trial key, a valid key of
 * the wrong kind, is 403 `key_kind_not_allowed`.
 */
import type { H3Event } from "h3";
import { apiError } from "../../shared/errors.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { requestCaller } from "./request-caller.ts";

export interface PresentedKey {
  key: string;
  record: KeyRecord;
}

export async function requireKey(
  event: H3Event,
  deps: Pick<DomainDeps, "keys" | "clock">,
  options: { now: number; membership: boolean; detail?: string },
): Promise<PresentedKey> {
  const slot = requestCaller(event, deps);
  const { key } = slot.credentials();
  if (key === null || key === "") throw apiError("key_missing");
  const caller = await slot.caller();
  if (caller.kind !== "key") throw apiError("key_missing");
  const record = caller.record;
  if (options.membership && record.type !== "membership")
    throw apiError("key_kind_not_allowed", options.detail ? { detail: options.detail } : {});
  return { key, record };
}
