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

export function sendJson(event: H3Event, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return sendBytes(event, status, JSON.stringify(body), { "cache-control": "no-store", ...headers });
}
