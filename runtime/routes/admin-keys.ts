/**
 * Admin key management over HTTP (admin bearer, like POST /api/keys): `GET /api/admin/keys?label=`
 * lists keys (by label), `POST /api/admin/keys/revoke` revokes one by id or full key. The operator
 * CLI calls the same `revokeKey` on the same store.
 */
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { guardAdmin } from "../access/admin.ts";
import { compileValidator, readJsonBody } from "../http/body.ts";
import { requestContext } from "../http/context.ts";
import { readSingleParam } from "../http/query.ts";
import { sendJson } from "../http/respond.ts";
import { describeKeyForAdmin } from "../keys/admin-key-view.ts";
import { revokeKey } from "../keys/revoke-key.ts";
import { RevokeKeyRequestSchema } from "../schema/admin-keys.ts";

const revokeValidator = compileValidator(RevokeKeyRequestSchema);

/** Largest listing answered at once; an operator narrows by label beyond that. */
const MAX_LISTED = 1000;

export default definePlugin<AppDeps>((app, deps) => {
  app.get("/api/admin/keys", async (event) => {
    await guardAdmin(deps, event);
    const label = readSingleParam(requestContext(event).url.searchParams, "label");
    const records = (await deps.keys.list(label === null ? {} : { label })).slice(0, MAX_LISTED);
    const now = deps.clock.now();
    const limits = limitsInForce(deps);
    const keys = await Promise.all(records.map((r) => describeKeyForAdmin(deps.backend, limits, r, now)));
    return sendJson(event, 200, { keys });
  });

  app.post("/api/admin/keys/revoke", async (event) => {
    await guardAdmin(deps, event);
    const body = await readJsonBody(event, revokeValidator, deps.config.maxBodyBytes);
    const now = deps.clock.now();
    const record = await revokeKey(deps.keys, body.key !== undefined ? { key: body.key } : { id: body.id! }, now);
    deps.logger.info("key revoked", { request_id: requestContext(event).requestId, key_id: record.id });
    return sendJson(event, 200, await describeKeyForAdmin(deps.backend, limitsInForce(deps), record, now));
  });
});
