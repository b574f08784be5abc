/**
 * UTC-day windows on the growth routes, kept in the state store (atomic, shared by all
 * instances): anonymous demand signals and new identities (agent_ids or contacts not seen
 * before) per client address, and Proof-of-Outcome submissions per key. Dedupe per identity
 * stops one agent from stuffing a count; these stop one client from inventing agents, and one
 * member from flooding the mean. A refused request consumes nothing.
 */
import type { AppDeps } from "../deps.ts";
import { apiError, type ErrorCode } from "../errors.ts";

const DAY_MS = 86_400_000;

/** Counts one request in `<subject>:<day>`, or throws `code` with Retry-After to the next UTC midnight. */
export async function consumeDaily(
  deps: AppDeps,
  subject: string,
  limit: number,
  now: number,
  refusal: { code: ErrorCode; detail: string },
): Promise<void> {
  const day = Math.floor(now / DAY_MS);
  const window = { key: `${subject}:${day}`, limit, expiresAt: (day + 1) * DAY_MS };
  const result = await deps.backend.consume([window], 1, now);
  if (!result.admitted) {
    throw apiError(refusal.code, {
      detail: refusal.detail,
      headers: { "retry-after": String(Math.max(1, Math.ceil(((day + 1) * DAY_MS - now) / 1000))) },
    });
  }
}
