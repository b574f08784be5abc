/**
 * Building responses. Prebuilt artifacts go out as the bytes the build wrote (srvx's
 * FastResponse skips the WHATWG Response overhead); small dynamic bodies are serialised once.
 */
import type { H3Event } from "h3";
import { FastResponse } from "srvx";
import { baseHeaders, JSON_TYPE } from "./headers.ts";
import { requestContext } from "./context.ts";

export function sendBytes(event: H3Event, status: number, bytes: Uint8Array | string | null, headers: Record<string, string>): Response {
  const ctx = requestContext(event);
  return new FastResponse(bytes as BodyInit | null, { status, headers: { ...baseHeaders(ctx.requestId), "content-type": JSON_TYPE, ...headers } });
}

export function sendJson(event: H3Event, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return sendBytes(event, status, JSON.stringify(body), { "cache-control": "no-store", ...headers });
}
