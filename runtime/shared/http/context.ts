/** Per-request context kept on the h3 event: request id and start time for logs and problems. */

import { randomUUID } from "node:crypto";
import type { H3Event } from "h3";

export interface RequestContext {
  requestId: string;
  startedAt: number;
  url: URL;
  /** Public id of the key that was resolved, for logs (never the key itself). */
  keyId?: string;
  /** Payment method of a checkout request, for the payment outcome metric. */
  paymentMethod?: string;
}

const CONTEXT = Symbol("vkr.request");

export function initRequestContext(event: H3Event): RequestContext {
  const incoming = event.req.headers.get("x-request-id");
  const ctx: RequestContext = {
    // Accept a caller's id only when it is short and plain, so logs cannot be forged through it.
    requestId: incoming && /^[\w.-]{8,64}$/.test(incoming) ? incoming : randomUUID(),
    startedAt: performance.now(),
    url: event.url,
  };
  (event.context as Record<symbol, unknown>)[CONTEXT] = ctx;
  return ctx;
}

export function requestContext(event: H3Event): RequestContext {
  return ((event.context as Record<symbol, unknown>)[CONTEXT] as RequestContext | undefined) ?? initRequestContext(event);
}
