/**
 * The admin bearer of POST /api/keys: missing → 401, wrong → 403 (spec), compared in constant
 * time. Without a configured ADMIN_KEY every bearer is wrong, so admin issuance is simply off.
 */

import type { H3Event } from "h3";
import { apiError, isApiError } from "../../shared/errors.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { type AuditContext, adminActor } from "../audit/audit-log.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { secretsEqual } from "../keys/key-secret.ts";

export function assertAdmin(headers: Headers, adminKey: string | undefined): void {
  const auth = headers.get("authorization");
  if (!auth || !/^bearer\s+\S/i.test(auth)) throw apiError("admin_auth_missing");
  const presented = auth.replace(/^bearer\s+/i, "").trim();
  // Compare even when no key is configured, so both cases take the same time.
  const ok = secretsEqual(presented, adminKey ?? "\u0000no-admin-key");
  if (!ok || adminKey === undefined) throw apiError("admin_auth_invalid");
}

/**
 * `assertAdmin` plus a limit on wrong bearers per client: after `adminFailuresPerWindow` wrong
 * guesses in 15 minutes the client gets 429 until the window ends, so the admin secret cannot
 * be brute-forced through the API. Missing headers do not count (nothing was guessed).
 *
 * Every bearer is compared only while it holds one of the window's `limit` slots, taken
 * atomically BEFORE the comparison: reading a count, comparing and then incrementing let one
 * concurrent burst have hundreds of guesses evaluated. A wrong bearer keeps its slot for the rest
 * of the window; a right one gives it back. A request that finds every slot taken while fewer
 * than `limit` guesses were wrong waits for a slot to come back (right bearers in flight hold
 * them for a moment), so an operator issuing keys in parallel is never refused for it.
 */
export async function guardAdmin(deps: Pick<DomainDeps, "clock" | "config" | "shared">, event: H3Event): Promise<void> {
  const auth = event.req.headers.get("authorization");
  if (!auth || !/^bearer\s+\S/i.test(auth)) throw apiError("admin_auth_missing");
  const now = deps.clock.now();
  const client = clientAddress(event, deps.config);
  const limit = deps.config.adminFailuresPerWindow;
  const limits = deps.shared.limits;
  const waitUntil = performance.now() + SLOT_WAIT_MS;
  for (let tries = 0; ; tries++) {
    const wait = await limits.consume("admin-guesses", client, limit, now);
    if (wait === 0) break;
    const wrong = await limits.count("admin-wrong", client, now);
    if (wrong >= limit || performance.now() >= waitUntil) {
      throw apiError("rate_limited", {
        detail: "Too many wrong admin keys from this client; wait for the window to end.",
        headers: { "retry-after": wrong >= limit ? String(wait) : "1" },
      });
    }
    // Backs off (2 ms doubling to 50 ms, jittered) so waiting requests cost the store little.
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 ** (tries + 1)) * (0.5 + Math.random())));
  }
  try {
    assertAdmin(event.req.headers, deps.config.adminKey);
  } catch (error) {
    // A wrong bearer keeps its slot for the window; a right one (or another failure) gives it back.
    if (isApiError(error) && error.code === "admin_auth_invalid")
      await limits.consume("admin-wrong", client, Number.POSITIVE_INFINITY, now);
    else await limits.giveBack("admin-guesses", client, now);
    throw error;
  }
  await limits.giveBack("admin-guesses", client, now);
}

/** The audit context of an admin request: its bearer (already checked) named by a digest prefix. */
export function adminAudit(deps: Pick<DomainDeps, "backend">, event: H3Event): AuditContext {
  return {
    backend: deps.backend,
    actor: adminActor(
      event.req.headers
        .get("authorization")
        ?.replace(/^bearer\s+/i, "")
        .trim(),
    ),
  };
}

// --- Internal helpers ---

/** How long a request waits for a slot held by guesses in flight before it is refused anyway. */
const SLOT_WAIT_MS = 5_000;
