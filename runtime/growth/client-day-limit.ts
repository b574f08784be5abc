/**
 * Per-client daily windows on the growth routes, kept in the state store (atomic, shared by all
 * instances): anonymous demand signals, and new identities (agent_ids or contacts not seen
 * before) on the interest and waitlist routes. Dedupe per identity stops one agent from
 * stuffing a count; these stop one client from inventing agents to do it. A denied request
 * consumes nothing.
 */
import type { AppDeps } from "../deps.ts";
import { apiError } from "../errors.ts";

const DAY_MS = 86_400_000;

export async function consumeClientDay(deps: AppDeps, scope: string, client: string, limit: number, now: number, detail: string): Promise<void> {
  const day = Math.floor(now / DAY_MS);
  const window = { key: `${scope}:${client}:${day}`, limit, expiresAt: (day + 1) * DAY_MS };
  const result = await deps.backend.consume([window], 1, now);
  if (!result.admitted) {
    throw apiError("rate_limited", { detail, headers: { "retry-after": String(Math.max(1, Math.ceil(((day + 1) * DAY_MS - now) / 1000))) } });
  }
}
