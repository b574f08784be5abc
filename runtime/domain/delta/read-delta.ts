/**
 * The change feed for one caller, shared by `GET /v1/delta` and the MCP `get_changes`
 * tool: membership check, vertical scope, `since`, cursor and limit, then one page, metered as one
 * retrieval for the key.
 */
import { apiError } from "../../shared/errors.ts";
import type { KeyRecord } from "../../shared/schema/keys.ts";
import type { DeltaResponse } from "../../shared/schema/responses.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import type { Caller } from "../access/credentials.ts";
import { keyCoversVertical } from "../access/decide-read.ts";
import { unknownVertical } from "../access/unknown-names.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { meterKey } from "../metering/meter.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { cursorSecret } from "./cursor-secret.ts";
import { pageChangelog, parseSince } from "./page-changelog.ts";

export const DELTA_DEFAULT_LIMIT = 100;
export const DELTA_MAX_LIMIT = 1000;

export interface DeltaQuery {
  /** Any accepted slug (aliases too); null for every vertical the key can read. */
  vertical: string | null;
  since: string | null;
  cursor: string | null;
  limit: number | null;
}

export interface DeltaResult {
  body: DeltaResponse;
  /** RateLimit headers of the metered key. */
  headers: Record<string, string>;
}

/** Only membership keys read the feed: no key, a payment token or a trial key is a 401. */
export function requireMembershipKey(caller: Caller): KeyRecord {
  if (caller.kind !== "key") throw apiError("key_missing", { detail: "GET /v1/delta needs a membership key in X-Service-Key." });
  if (caller.record.type !== "membership") throw apiError("membership_required", { detail: "Trial keys do not read the change feed." });
  return caller.record;
}

/**
 * Validates the query (400s), scopes it to what the key may read (403), reads one page and meters
 * it. Nothing is metered when any check fails; `count: false` (a HEAD) checks access as usual but
 * consumes nothing.
 */
export async function readDelta(
  deps: DomainDeps,
  record: KeyRecord,
  query: DeltaQuery,
  now: number,
  { count = true }: { count?: boolean } = {},
): Promise<DeltaResult> {
  const build = deps.build.current;
  const sinceMs = query.since === null ? null : parseSince(query.since);
  if (query.since !== null && sinceMs === null) {
    throw apiError("validation_failed", {
      detail: `"since" must be an ISO 8601 date-time with a zone (2026-11-01T09:30:00Z) or a date.`,
      errors: [{ pointer: "/query/since", message: "must be an ISO 8601 date-time" }],
    });
  }
  const limit = query.limit ?? DELTA_DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > DELTA_MAX_LIMIT) {
    throw apiError("validation_failed", {
      detail: `"limit" must be from 1 to ${DELTA_MAX_LIMIT}.`,
      errors: [{ pointer: "/query/limit", message: `must be from 1 to ${DELTA_MAX_LIMIT}` }],
    });
  }
  const secret = await cursorSecret(deps);
  const after = query.cursor === null ? null : decodeCursor(query.cursor, secret);

  let verticals: Set<string>;
  if (query.vertical !== null) {
    const vertical = build.resolveVertical(query.vertical);
    if (!vertical) throw unknownVertical(build, query.vertical);
    if (!keyCoversVertical(record, vertical))
      throw apiError("vertical_forbidden", { detail: `This key does not read the changes of ${vertical.slug}.` });
    verticals = new Set([vertical.slug]);
  } else {
    verticals = new Set(build.catalog.verticals.filter((v) => keyCoversVertical(record, v)).map((v) => v.slug));
  }

  const page = pageChangelog(build.changelog, { sinceMs, after, verticals, limit });
  const headers = count ? await meterKey(deps.backend, limitsInForce(deps), record, now) : {};
  const last = page.entries.at(-1);
  // At the end of the feed the cursor still points after the last entry, so polling it later
  // returns exactly what was added since; an empty page hands back the cursor it was given.
  const nextCursor = last ? encodeCursor(last, secret) : query.cursor;
  return { body: { entries: page.entries, next_cursor: nextCursor, has_more: page.hasMore }, headers };
}
