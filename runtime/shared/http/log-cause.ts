/**
 * A problem the service answers for its own failure (a 5xx, such as `store_unavailable`) is logged
 * with what caused it, once, where the request id is known (the REST problem handler, the MCP tool
 * and resource answers). The client gets the catalogue's problem; the operator gets the cause. Only
 * the cause's message and code are logged, never a request's headers or body.
 */
import type { ApiError } from "../errors.ts";
import type { Logger } from "../logger.ts";

const MESSAGE_MAX = 300;

export function logProblemCause(logger: Logger, requestId: string, error: ApiError): void {
  if (error.status < 500) return;
  const cause = _rootCause(error);
  if (cause === undefined) return;
  const code = (cause as { code?: unknown } | null)?.code;
  logger.error("request failed on a dependency", {
    request_id: requestId,
    code: error.code,
    cause: (cause instanceof Error ? cause.message : String(cause)).slice(0, MESSAGE_MAX),
    ...(typeof code === "string" || typeof code === "number" ? { cause_code: code } : {}),
  });
}

// --- Internal helpers ---

/** The innermost cause: a store error is wrapped as `store_unavailable` by the backend and again by its caller. */
function _rootCause(error: Error): unknown {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 5 && cause instanceof Error && cause.cause !== undefined; depth++) cause = cause.cause;
  return cause;
}
