/**
 * Public API of the runtime: `createApp(deps)` returns the h3 app with every route registered.
 * Errors from the catalogue become problem+json; anything else is masked as a 500 with a request
 * id and logged with its stack (never sent).
 */
import { H3, type H3Event, type HTTPError } from "h3";
import type { AppDeps } from "./deps.ts";
import { usePageLimit } from "./domain/metering/page-limit.ts";
import { UNMATCHED_ROUTE } from "./edges/metrics/create-metrics.ts";
import { ROUTE_FILES, ROUTES } from "./edges/routes/index.ts";
import { assertEveryRouteBound } from "./edges/routes/route-table.ts";
import { useRequestSpans } from "./edges/tracing/request-spans.ts";
import { type ApiError, apiError, type ErrorCode, isApiError } from "./shared/errors.ts";
import { clientCutOff } from "./shared/http/body.ts";
import { useCoalescedWrites } from "./shared/http/coalesce-writes.ts";
import { initRequestContext, requestContext } from "./shared/http/context.ts";
import { baseHeaders } from "./shared/http/headers.ts";
import { logProblemCause } from "./shared/http/log-cause.ts";
import { problemResponse } from "./shared/http/problem.ts";
import { redactTarget } from "./shared/logger.ts";

export type { AppDeps } from "./deps.ts";

export function createApp(deps: AppDeps): H3 {
  let endSpan: ((event: H3Event, status: number) => void) | null = null;
  const app = new H3({
    silent: true,
    onRequest: (event) => void initRequestContext(event),
    onResponse: (response, event) => {
      endSpan?.(event, response.status);
      _logRequest(deps, event, response.status);
    },
    onError: (error, event) => _toProblem(deps, error, event),
  });

  // First, so the request's span holds everything after it; without traces nothing is registered.
  if (deps.tracing) endSpan = useRequestSpans(app, deps.tracing);
  useCoalescedWrites(app);
  usePageLimit(app, deps);
  for (const file of ROUTE_FILES) app.register(file.plugin(deps, ROUTES));
  assertEveryRouteBound(app, ROUTES);
  return app;
}

// --- Internal helpers ---

/** h3's own errors (no route, malformed URL, …) mapped onto catalogue codes. */
const H3_STATUS_CODES: Record<number, ErrorCode> = {
  400: "bad_request",
  404: "not_found",
  405: "method_not_allowed",
  413: "body_too_large",
  415: "unsupported_media_type",
};

function _toProblem(deps: AppDeps, error: HTTPError, event: H3Event): Response {
  const ctx = requestContext(event);
  const cause = (error as { cause?: unknown }).cause;
  let apiErr: ApiError;
  const cutOff = clientCutOff(cause, event) ?? clientCutOff(error, event);
  if (isApiError(error)) apiErr = error;
  else if (isApiError(cause)) apiErr = cause;
  else if (cutOff)
    apiErr = cutOff; // the client hung up or was too slow: its doing, logged at info by the request log
  else if (!error.unhandled && H3_STATUS_CODES[error.status]) {
    apiErr = apiError(H3_STATUS_CODES[error.status]!, {
      detail: error.status === 404 ? `No route for ${event.req.method} ${ctx.url.pathname.slice(0, 200)}.` : undefined,
    });
  } else {
    deps.logger.error("unhandled error", {
      request_id: ctx.requestId,
      route: ctx.url.pathname,
      error: (cause instanceof Error ? cause : error).stack ?? String(cause ?? error),
    });
    apiErr = apiError("internal_error", { detail: `Unexpected error; request id ${ctx.requestId}.` });
  }
  logProblemCause(deps.logger, ctx.requestId, apiErr);
  deps.metrics?.observeProblem(apiErr);
  const headers = new Headers(baseHeaders(ctx.requestId));
  return problemResponse(apiErr, { requestId: ctx.requestId, baseUrl: deps.config.publicBaseUrl }, headers);
}

function _logRequest(deps: AppDeps, event: H3Event, status: number): void {
  const ctx = requestContext(event);
  // The matched route pattern, never the raw path: label values must stay a small, fixed set.
  const route = event.context.matchedRoute?.route ?? UNMATCHED_ROUTE;
  deps.metrics?.observeResponse({
    method: event.req.method,
    route,
    status,
    seconds: (performance.now() - ctx.startedAt) / 1000,
    paymentMethod: ctx.paymentMethod,
  });
  if (!deps.logger.enabled("info")) return;
  deps.logger.info("request", {
    request_id: ctx.requestId,
    method: event.req.method,
    target: redactTarget(ctx.url),
    status,
    ms: Math.round((performance.now() - ctx.startedAt) * 100) / 100,
    ...(ctx.keyId ? { key_id: ctx.keyId } : {}),
  });
}
