/**
 * For endpoints whose spec says "key header required" (PoV, member telemetry, referral): the key
 * in X-Service-Key (or `Authorization: Bearer svc_…`), resolved to an active record. No key is
 * 401 `key_missing`; a bad key 401 `key_*`; with `membership: true` a trial key, a valid key of
 * the wrong kind, is 403 `key_kind_not_allowed`.
 */
import type { H3Event } from "h3";
import { apiError } from "../errors.ts";
import { requestContext } from "../http/context.ts";
import type { KeyRecord } from "../schema/keys.ts";
import type { KeysStore } from "../storage/keys-store.ts";
import { readCredentials, resolveKey } from "./credentials.ts";

export interface PresentedKey {
  key: string;
  record: KeyRecord;
}

export async function requireKey(event: H3Event, deps: { keys: KeysStore }, options: { now: number; membership: boolean; detail?: string }): Promise<PresentedKey> {
  const ctx = requestContext(event);
  const { key } = readCredentials(event.req.headers, ctx.url, { allowQueryKey: false });
  if (key === null || key === "") throw apiError("key_missing");
  const record = await resolveKey(key, deps.keys, options.now);
  ctx.keyId = record.id;
  if (options.membership && record.type !== "membership") throw apiError("key_kind_not_allowed", options.detail ? { detail: options.detail } : {});
  return { key, record };
}
