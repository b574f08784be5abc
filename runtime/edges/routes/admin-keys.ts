/**
 * Admin key management over HTTP (admin bearer, like POST /api/keys): `GET /api/admin/keys?label=`
 * lists keys (by label), `GET /api/admin/keys/usage?id=` reads one's daily usage history,
 * `POST /api/admin/keys/revoke` revokes one by id or full key. The operator
 * CLI calls the same `revokeKey` on the same store.
 */

import { Type } from "@sinclair/typebox";
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
import {
  AdminKeyListSchema,
  AdminKeyViewSchema,
  KeyUsageSchema,
  RerolledKeySchema,
  RerollKeyRequestSchema,
  RevokeKeyRequestSchema,
  UpdateKeyRequestSchema,
} from "../../shared/schema/admin-keys.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import { ADMIN_ERRORS } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const revokeValidator = compileValidator(RevokeKeyRequestSchema);
const rerollValidator = compileValidator(RerollKeyRequestSchema);
const updateValidator = compileValidator(UpdateKeyRequestSchema);

/** Largest listing answered at once; an operator narrows by label beyond that. */
const MAX_LISTED = 1000;

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/admin/keys",
    operationId: "listKeys",
    metrics: "request",
    summary: "List keys (admin)",
    description: [
      "Admin bearer, as POST /api/keys (missing 401, wrong or ADMIN_KEY unset 403). `label` keeps only keys with exactly that label; without it every key is listed, oldest first, at most 1000.",
      "A separate path rather than an admin mode of GET /api/keys: that route answers a key holder about their own key, and mixing the two audiences on one path would make a missing key header ambiguous. Secrets and hashes are never listed; keys are named by their public id.",
    ].join("\n\n"),
    security: ["adminBearer"],
    params: [
      { name: "label", in: "query", schema: Type.String({ minLength: 1, maxLength: 100 }), description: "Only keys with this label" },
    ],
    responses: { 200: { description: "The keys, with usage, quota and revocation", schema: AdminKeyListSchema }, ...ADMIN_ERRORS },
  },
  {
    method: "get",
    path: "/api/admin/keys/usage",
    operationId: "getKeyUsage",
    metrics: "request",
    summary: "A key's daily usage history (admin)",
    description:
      "Admin bearer. The key's metered calls per UTC day over the last `days` (90) days, today included, oldest first, days without a call left out, and their `total`: the `usage_history` its holder sees in GET /api/keys. Today's count is live; earlier days are the day counters the meter kept, folded into the history once a day. `vkr keys usage` prints the same.",
    security: ["adminBearer"],
    params: [
      {
        name: "id",
        in: "query",
        required: true,
        schema: Type.String({ pattern: "^[0-9a-f]{12}$" }),
        description: "Public key id (as listed)",
      },
    ],
    responses: {
      200: { description: "The key's calls per day", schema: KeyUsageSchema },
      400: { description: "No id, or not a key id" },
      ...ADMIN_ERRORS,
      404: { description: "No such key" },
    },
  },
  {
    method: "post",
    path: "/api/admin/keys/revoke",
    operationId: "revokeKey",
    metrics: "request",
    summary: "Revoke a key (admin)",
    description: [
      "Body: exactly one of `id` (the public key id) or `key` (the full key). The key's status becomes `revoked` with `revoked_at`; revoking a revoked key answers 200 with the first revocation unchanged. Revocation is final (issue a new key instead of un-revoking).",
      "Every later request with the key is 401 `key_revoked`. Instances cache resolved keys for up to 1 s, so another instance may still accept the key for that long; the instance that revoked it refuses it at once. `vkr keys revoke` does the same on the store directly.",
    ].join("\n\n"),
    security: ["adminBearer"],
    body: RevokeKeyRequestSchema,
    responses: {
      200: { description: "The revoked key", schema: AdminKeyViewSchema },
      400: { description: "Invalid body" },
      ...ADMIN_ERRORS,
      404: { description: "No such key" },
    },
  },
  {
    method: "post",
    path: "/api/admin/keys/reroll",
    operationId: "rerollKey",
    metrics: "request",
    summary: "Re-roll a key's secret (admin)",
    description: [
      "Body: `id` or `key` (exactly one), and `grace_seconds` (default 86400, 0 to 2592000). The key keeps its record (id, usage, quota, account, label, expiry) and gets a new secret, answered once as `key`; the new secret works at once.",
      "The previous secret keeps working until `previous_valid_until`, then every request with it is 401 `key_rerolled` (`GET /api/verify` says `reason: rerolled`). A leaked key is replaced without cutting its holder off; with `grace_seconds: 0` the old secret stops at once. A revoked key is not re-rolled (409 `conflict`). `vkr keys reroll` does the same.",
    ].join("\n\n"),
    security: ["adminBearer"],
    body: RerollKeyRequestSchema,
    responses: {
      200: { description: "The new secret and the key", schema: RerolledKeySchema },
      400: { description: "Invalid body" },
      ...ADMIN_ERRORS,
      404: { description: "No such key" },
      409: { description: "The key is revoked" },
    },
  },
  {
    method: "post",
    path: "/api/admin/keys/update",
    operationId: "updateKey",
    metrics: "request",
    summary: "Edit a key's label or expiry (admin)",
    description:
      "Body: `id` or `key` (exactly one) and at least one of `label` (a string, or null to remove it) and `expires_at` (an ISO 8601 date or date-time, or null for no expiry). An expiry in the past makes the key expired at once (401 `key_expired`). `vkr keys label` and `vkr keys expire` do the same.",
    security: ["adminBearer"],
    body: UpdateKeyRequestSchema,
    responses: {
      200: { description: "The key as it is now", schema: AdminKeyViewSchema },
      400: { description: "Invalid body" },
      ...ADMIN_ERRORS,
      404: { description: "No such key" },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
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
