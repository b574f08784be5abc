/**
 * The one way payment providers call out: JSON over fetch with a hard time limit. A timeout or an
 * unreadable answer is a `payment_gateway_error` (502): the provider's state is unknown, so the
 * caller must not issue anything.
 */
import { apiError } from "../../../shared/errors.ts";

export interface JsonReply {
  status: number;
  body: unknown;
}

export async function postJson(
  url: string,
  body: unknown,
  options: { headers?: Record<string, string>; timeoutMs: number; provider: string },
): Promise<JsonReply> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...options.headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    throw apiError("payment_gateway_error", {
      detail: `${options.provider} ${timedOut ? `did not answer within ${options.timeoutMs} ms` : "could not be reached"}; nothing was issued.`,
    });
  }
  const text = await res.text().catch(() => "");
  // Provider answers are untrusted input: bounded, parsed defensively, shape-checked by the caller.
  if (text.length > 64 * 1024)
    throw apiError("payment_gateway_error", { detail: `${options.provider} sent an oversized answer; nothing was issued.` });
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed };
}
