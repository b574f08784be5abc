/**
 * Admin key management over HTTP (admin bearer, like POST /api/keys): `GET /api/admin/keys?label=`
 * lists keys (by label), `GET /api/admin/keys/usage?id=` reads one's daily usage history,
 * `POST /api/admin/keys/revoke` revokes one by id or full key. The operator
 * CLI calls the same `revokeKey` on the same store.
 */

import { adminAudit, guardAdmin } from "../../domain/access/admin.ts";
import { describeKeyForAdmin } from "../../domain/keys/admin-key-view.ts";
import { parseExpiry, REROLL_GRACE_DEFAULT_SECONDS, rerollKey, updateKey } from "../../domain/keys/manage-key.ts";
import { findKey, type KeyReference, revokeKey } from "../../domain/keys/revoke-key.ts";
import { describeKeyUsage } from "../../domain/metering/usage-history.ts";
import { apiError } from "../../shared/errors.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { requestContext } from "../../shared/http/context.ts";
import { readSingleParam } from "../../shared/http/query.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { RerollKeyRequestSchema, RevokeKeyRequestSchema, UpdateKeyRequestSchema } from "../../shared/schema/admin-keys.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import { defineRoutes } from "./route-table.ts";

const revokeValidator = compileValidator(RevokeKeyRequestSchema);
const rerollValidator = compileValidator(RerollKeyRequestSchema);
const updateValidator = compileValidator(UpdateKeyRequestSchema);

/** Largest listing answered at once; an operator narrows by label beyond that. */
const MAX_LISTED = 1000;

export default defineRoutes((route, deps) => {
  route("listKeys", async (event) => {
    await guardAdmin(deps, event);
    const label = readSingleParam(requestContext(event).url.searchParams, "label");
    const records = (await deps.keys.list(label === null ? {} : { label })).slice(0, MAX_LISTED);
    const now = deps.clock.now();
    const limits = limitsInForce(deps);
    const keys = await Promise.all(records.map((r) => describeKeyForAdmin(deps.backend, limits, r, now)));
    return sendJson(event, 200, { keys });
  });

  route("getKeyUsage", async (event) => {
    await guardAdmin(deps, event);
    const id = readSingleParam(requestContext(event).url.searchParams, "id");
    if (id === null || !/^[0-9a-f]{12}$/.test(id))
      throw apiError("validation_failed", { errors: [{ pointer: "/query/id", message: "must be a key id (12 hex characters)" }] });
    const record = await findKey(deps.keys, { id });
    if (!record) throw apiError("key_not_found");
    return sendJson(event, 200, await describeKeyUsage(deps.backend, limitsInForce(deps), record, deps.clock.now()));
  });

  route("revokeKey", async (event) => {
    await guardAdmin(deps, event);
    const body = await readJsonBody(event, revokeValidator, deps.config.maxBodyBytes);
    const now = deps.clock.now();
    const record = await revokeKey(deps.keys, body.key !== undefined ? { key: body.key } : { id: body.id! }, now, adminAudit(deps, event));
    deps.logger.info("key revoked", { request_id: requestContext(event).requestId, key_id: record.id });
    return sendJson(event, 200, await describeKeyForAdmin(deps.backend, limitsInForce(deps), record, now));
  });

  route("rerollKey", async (event) => {
    await guardAdmin(deps, event);
    const body = await readJsonBody(event, rerollValidator, deps.config.maxBodyBytes);
    const now = deps.clock.now();
    const grace = body.grace_seconds ?? REROLL_GRACE_DEFAULT_SECONDS;
    const rerolled = await rerollKey(deps.keys, _reference(body), grace, now, adminAudit(deps, event));
    deps.logger.info("key rerolled", { request_id: requestContext(event).requestId, key_id: rerolled.record.id });
    const view = await describeKeyForAdmin(deps.backend, limitsInForce(deps), rerolled.record, now);
    return sendJson(event, 200, { key: rerolled.key, previous_valid_until: rerolled.previousValidUntil, ...view });
  });

  route("updateKey", async (event) => {
    await guardAdmin(deps, event);
    const body = await readJsonBody(event, updateValidator, deps.config.maxBodyBytes);
    const now = deps.clock.now();
    const record = await updateKey(
      deps.keys,
      _reference(body),
      {
        ...(body.label !== undefined ? { label: body.label } : {}),
        ...(body.expires_at !== undefined ? { expiresAt: body.expires_at === null ? null : parseExpiry(body.expires_at) } : {}),
      },
      now,
      adminAudit(deps, event),
    );
    deps.logger.info("key updated", { request_id: requestContext(event).requestId, key_id: record.id });
    return sendJson(event, 200, await describeKeyForAdmin(deps.backend, limitsInForce(deps), record, now));
  });
});

// --- Internal helpers ---

/** The key a body names: exactly one of `id` or `key`. */
function _reference(body: { id?: string | undefined; key?: string | undefined }): KeyReference {
  if ((body.id === undefined) === (body.key === undefined))
    throw apiError("validation_failed", { errors: [{ pointer: "/id", message: "give exactly one of id or key" }] });
  return body.key !== undefined ? { key: body.key } : { id: body.id! };
}
