/**
 * The admin bearer of POST /api/keys: missing → 401, wrong → 403 (spec), compared in constant
 * time. Without a configured ADMIN_KEY every bearer is wrong, so admin issuance is simply off.
 */
import { clientAddress } from "../http/client-address.ts";
import { type H3Event } from "h3";
import type { AppDeps } from "../deps.ts";
import { apiError, isApiError } from "../errors.ts";
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
 * The attempt is consumed atomically BEFORE the secret is compared, and given back only when the
 * bearer was right: reading the count, comparing and then incrementing let one concurrent burst
 * have hundreds of guesses evaluated before the first failure was written.
 */
export async function guardAdmin(deps: Pick<AppDeps, "backend" | "clock" | "config">, event: H3Event): Promise<void> {
  const auth = event.req.headers.get("authorization");
  if (!auth || !/^bearer\s+\S/i.test(auth)) throw apiError("admin_auth_missing");
  const now = deps.clock.now();
  const windowStart = Math.floor(now / ADMIN_WINDOW_MS) * ADMIN_WINDOW_MS;
  const client = clientAddress(event, deps.config.trustProxy);
  const counter = { key: `adminfail:${client}:${windowStart}`, limit: deps.config.adminFailuresPerWindow, expiresAt: windowStart + ADMIN_WINDOW_MS };
  const attempt = await deps.backend.consume([counter], 1, now);
  if (!attempt.admitted) {
    const retryAfter = String(Math.max(1, Math.ceil((windowStart + ADMIN_WINDOW_MS - now) / 1000)));
    throw apiError("rate_limited", { detail: "Too many wrong admin keys from this client; wait for the window to end.", headers: { "retry-after": retryAfter } });
  }
  try {
    assertAdmin(event.req.headers, deps.config.adminKey);
  } catch (error) {
    if (!isApiError(error) || error.code !== "admin_auth_invalid") await _giveBack(deps, counter, now);
    throw error;
  }
  await _giveBack(deps, counter, now);
}

// --- Internal helpers ---

const ADMIN_WINDOW_MS = 15 * 60_000;

/** Returns a consumed attempt (a right bearer is not a guess); same `now`, so the same live window. */
async function _giveBack(deps: Pick<AppDeps, "backend">, counter: { key: string; expiresAt: number }, now: number): Promise<void> {
  await deps.backend.consume([{ ...counter, limit: Number.POSITIVE_INFINITY }], -1, now);
}
