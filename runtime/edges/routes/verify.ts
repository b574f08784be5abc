/**
 * GET /api/verify: is this key usable, for what, and how much is left. An unknown, malformed,
 * revoked or expired key is still a 200 with `valid: false` and a reason (like Unkey's verify);
 * only a request without any key is a 401.
 */

import { readCredentials } from "../../domain/access/credentials.ts";
import { noteKey } from "../../domain/access/request-caller.ts";
import { verifyKey } from "../../domain/keys/verify-key.ts";
import { apiError } from "../../shared/errors.ts";
import { requestContext } from "../../shared/http/context.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { defineRoutes } from "./route-table.ts";

export default defineRoutes((route, deps) => {
  route("verifyKey", async (event) => {
    const ctx = requestContext(event);
    const { key } = readCredentials(event.req.headers, ctx.url, { allowQueryKey: false });
    if (key === null || key === "") throw apiError("key_missing");
    const { body, record } = await verifyKey(deps, key, deps.clock.now());
    if (record) noteKey(event, record);
    return sendJson(event, 200, body);
  });
});
