/**
 * GET /api/verify: is this key usable, for what, and how much is left. An unknown, malformed,
 * revoked or expired key is still a 200 with `valid: false` and a reason (like Unkey's verify);
 * only a request without any key is a 401.
 */
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { apiError, isApiError } from "../errors.ts";
import { readCredentials, resolveKey } from "../access/credentials.ts";
import { keyCoversVertical } from "../access/resolve-access.ts";
import { requestContext } from "../http/context.ts";
import { sendJson } from "../http/respond.ts";
import { planWindows } from "../metering/quota.ts";
import { remainingOf } from "../keys/key-view.ts";

const REASONS = { key_invalid: "unknown", key_revoked: "revoked", key_expired: "expired" } as const;

export default definePlugin<AppDeps>((app, deps) => {
  app.get("/api/verify", async (event) => {
    const ctx = requestContext(event);
    const { key } = readCredentials(event.req.headers, ctx.url, { allowQueryKey: false });
    if (key === null || key === "") throw apiError("key_missing");
    const now = deps.clock.now();
    try {
      const record = await resolveKey(key, deps.keys, now);
      ctx.keyId = record.id;
      const limits = limitsInForce(deps);
      const windows = planWindows(record, limits, now);
      const counts = await deps.backend.readCounters(windows.map((w) => w.key), now);
      const verticals = deps.build.current.catalog.verticals.filter((v) => v.status === "live" && keyCoversVertical(record, v)).map((v) => v.slug);
      return sendJson(event, 200, {
        valid: true,
        type: record.type,
        vertical_access: verticals,
        remaining_quota: remainingOf(windows, counts),
        expires_at: record.expires_at,
      });
    } catch (error) {
      if (!isApiError(error) || !(error.code in REASONS)) throw error;
      const malformed = error.code === "key_invalid" && !/^svc_(live|trial)_/.test(key);
      return sendJson(event, 200, {
        valid: false,
        type: null,
        vertical_access: [],
        remaining_quota: null,
        expires_at: null,
        reason: malformed ? "malformed" : REASONS[error.code as keyof typeof REASONS],
      });
    }
  });
});
