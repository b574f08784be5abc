/**
 * Opaque cursors of the change feed. A cursor names a position in the changelog, the (`at`, `id`)
 * of the last entry a client has seen, never an index: entries are only ever added, and they sort
 * by that pair, so a cursor stays meaningful across restarts and across new builds. An HMAC over
 * the position makes edited or forged cursors a 400 instead of a silent jump in the feed.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { apiError } from "../../shared/errors.ts";
import type { ChangelogEntry } from "../../shared/schema/artifacts.ts";

export type FeedPosition = Pick<ChangelogEntry, "at" | "id">;

/** Bytes of the HMAC-SHA256 kept in a cursor: 128 bits is plenty against forgery, and short. */
const MAC_BYTES = 16;
const CURSOR_RE = /^([A-Za-z0-9_-]{1,800})\.([A-Za-z0-9_-]{22})$/;

/** @example encodeCursor({ at: "2026-11-01T00:00:00Z", id: "travel/x/added" }, secret) // "WyIy….Q2Vb…" */
export function encodeCursor(position: FeedPosition, secret: string): string {
  const payload = Buffer.from(JSON.stringify([1, position.at, position.id]), "utf8").toString("base64url");
  return `${payload}.${_mac(payload, secret).toString("base64url")}`;
}

/** The position a cursor points after; throws 400 `invalid_cursor` for anything not signed by us. */
export function decodeCursor(cursor: string, secret: string): FeedPosition {
  const match = CURSOR_RE.exec(cursor);
  if (!match) throw _invalid("The cursor is malformed.");
  const [, payload, mac] = match as unknown as [string, string, string];
  const given = Buffer.from(mac, "base64url");
  if (given.length !== MAC_BYTES || !timingSafeEqual(given, _mac(payload, secret)))
    throw _invalid("The cursor was not issued by this service or was altered.");
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw _invalid("The cursor is malformed.");
  }
  // Version 1 is the only layout so far; a signed cursor of another shape is still refused.
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== 1 || typeof parsed[1] !== "string" || typeof parsed[2] !== "string") {
    throw _invalid("The cursor is malformed.");
  }
  return { at: parsed[1], id: parsed[2] };
}

// --- Internal helpers ---

function _mac(payload: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(`delta-cursor:${payload}`).digest().subarray(0, MAC_BYTES);
}

function _invalid(detail: string) {
  return apiError("invalid_cursor", { detail, errors: [{ pointer: "/query/cursor", message: detail }] });
}
