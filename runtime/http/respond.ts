/**
 * Building responses. Prebuilt artifacts go out as the bytes the build wrote (srvx's
 * FastResponse skips the WHATWG Response overhead); small dynamic bodies are serialised once.
 */
import type { H3Event } from "h3";
import { FastResponse } from "srvx";
import { baseHeaders, JSON_TYPE } from "./headers.ts";
import { requestContext } from "./context.ts";
import { PartsBody } from "./parts-body.ts";

const BASE_PAIRS = Object.entries(baseHeaders("")).filter(([name]) => name !== "x-request-id");
const BASE_NAMES = new Set(Object.keys(baseHeaders("")));

export function sendBytes(
  event: H3Event,
  status: number,
  bytes: Uint8Array | string | PartsBody | null,
  headers: Record<string, string>,
): Response {
  const ctx = requestContext(event);
  // Header pairs go to srvx as they are (it would take an object apart into pairs anyway); the
  // common case, no override of a base header, skips building two intermediate objects.
  const pairs: Array<[string, string]> = [...BASE_PAIRS, ["x-request-id", ctx.requestId]];
  let typed = false;
  for (const name in headers) {
    const value = headers[name]!;
    if (name === "content-type") typed = true;
    const at = BASE_NAMES.has(name) ? pairs.findIndex((p) => p[0] === name) : -1;
    if (at === -1) pairs.push([name, value]);
    else pairs[at] = [name, value];
  }
  if (!typed) pairs.push(["content-type", JSON_TYPE]);
  // srvx measures bytes and strings itself; a body in parts would otherwise go out chunked.
  if (bytes instanceof PartsBody) pairs.push(["content-length", String(bytes.byteLength)]);
  return new FastResponse(bytes as BodyInit | null, { status, headers: pairs });
}

/**
 * The headers of a kind of answer that do not change from one request to the next (an artifact's
 * ETag, signature and cache headers), merged over the base headers once. `sendPrepared` then adds
 * only the request's own (its id, its RateLimit fields): building and merging the same header
 * objects on every metered read was a visible share of its cost.
 */
export interface PreparedHeaders {
  readonly pairs: ReadonlyArray<readonly [string, string]>;
}

export function prepareHeaders(headers: Record<string, string>): PreparedHeaders {
  const pairs = new Map<string, string>(BASE_PAIRS);
  pairs.set("content-type", JSON_TYPE);
  for (const name in headers) pairs.set(name, headers[name]!);
  return { pairs: Object.freeze([...pairs].map(([name, value]) => Object.freeze([name, value] as const))) };
}

/** Sends `bytes` with prepared headers plus the request's own; `extra` names no prepared header. */
export function sendPrepared(
  event: H3Event,
  status: number,
  bytes: Uint8Array | null,
  prepared: PreparedHeaders,
  extra: Record<string, string> | null,
): Response {
  const pairs: Array<readonly [string, string]> = prepared.pairs.slice();
  pairs.push(["x-request-id", requestContext(event).requestId]);
  if (extra !== null) for (const name in extra) pairs.push([name, extra[name]!]);
  return new FastResponse(bytes as BodyInit | null, { status, headers: pairs as Array<[string, string]> });
}

export function sendJson(event: H3Event, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return sendBytes(event, status, JSON.stringify(body), { "cache-control": "no-store", ...headers });
}
