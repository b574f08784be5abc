/**
 * RFC 9457 problem details: every error leaves the service as `application/problem+json` with
 * `type`, `title`, `status`, `detail`, `instance` (the request id) and our stable `code`.
 */
import { type ApiError, ERRORS } from "../errors.ts";

export interface ProblemContext {
  requestId: string;
  /** Absolute base for `type` URIs; relative references are used without it. */
  baseUrl: string | undefined;
}

export function problemBody(error: ApiError, ctx: ProblemContext): Record<string, unknown> {
  const def = ERRORS[error.code];
  return {
    type: `${ctx.baseUrl ?? ""}/docs#problem-${error.code}`,
    title: def.title,
    status: def.status,
    detail: error.options.detail ?? def.title,
    instance: `urn:request:${ctx.requestId}`,
    code: error.code,
    ...("hint" in def ? { hint: def.hint } : {}),
    ...(error.options.errors ? { errors: error.options.errors } : {}),
    ...error.options.extra,
  };
}

export function problemResponse(error: ApiError, ctx: ProblemContext, baseHeaders: Headers): Response {
  const headers = new Headers(baseHeaders);
  headers.set("content-type", "application/problem+json");
  headers.set("cache-control", "no-store");
  for (const [name, value] of Object.entries(error.options.headers ?? {})) headers.set(name, value);
  return new Response(JSON.stringify(problemBody(error, ctx)), { status: error.status, headers });
}
