/**
 * One SERVER span per request: started by the app's first middleware, so everything the request
 * waits for (the store, the payment providers, the held write of `coalesce-writes.ts`) happens
 * inside it, and ended by the app's response hook with the route pattern and the status.
 */
import type { H3, H3Event } from "h3";
import { requestContext } from "../../shared/http/context.ts";
import type { RequestSpan, Tracing } from "./tracing.ts";

const SPAN = Symbol("vkr.span");

/** Registers the middleware (call it before any other) and returns what ends a request's span. */
export function useRequestSpans(app: H3, tracing: Tracing): (event: H3Event, status: number) => void {
  app.use((event, next) => {
    const ctx = requestContext(event);
    const span = tracing.startRequest({ method: event.req.method, path: ctx.url.pathname, requestId: ctx.requestId });
    (event.context as Record<symbol, unknown>)[SPAN] = span;
    return span.run(next);
  });
  return (event, status) => {
    const span = (event.context as Record<symbol, unknown>)[SPAN] as RequestSpan | undefined;
    if (!span) return;
    const ctx = requestContext(event);
    span.end({ route: event.context.matchedRoute?.route, status, keyId: ctx.keyId, paymentMethod: ctx.paymentMethod });
  };
}
