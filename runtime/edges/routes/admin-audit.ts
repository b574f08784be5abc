/**
 * GET /api/admin/audit: the audit trail (audit/audit-log.ts), newest first, filtered by key,
 * account, action and time, a page at a time. Admin bearer, like every admin route.
 */

import { guardAdmin } from "../../domain/access/admin.ts";
import { AUDIT_PAGE_MAX, readAudit } from "../../domain/audit/audit-log.ts";
import { apiError } from "../../shared/errors.ts";
import { requestContext } from "../../shared/http/context.ts";
import { readSingleParam } from "../../shared/http/query.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { defineRoutes } from "./route-table.ts";

export default defineRoutes((route, deps) => {
  route("readAudit", async (event) => {
    await guardAdmin(deps, event);
    const params = requestContext(event).url.searchParams;
    const text = (name: string) => readSingleParam(params, name) ?? undefined;
    const time = (name: string) => {
      const raw = text(name);
      if (raw === undefined) return undefined;
      const ms = Date.parse(raw);
      if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || !Number.isFinite(ms))
        throw apiError("validation_failed", { errors: [{ pointer: `/query/${name}`, message: "must be an ISO 8601 date or date-time" }] });
      return ms;
    };
    const limitText = text("limit");
    const limit = limitText === undefined ? 100 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX)
      throw apiError("validation_failed", {
        errors: [{ pointer: "/query/limit", message: `must be a whole number from 1 to ${AUDIT_PAGE_MAX}` }],
      });
    const cursor = text("cursor");
    if (cursor !== undefined && !/^\d{15}:[0-9a-f]{12}$/.test(cursor))
      throw apiError("invalid_cursor", { detail: "Pass `next` exactly as the previous page returned it." });
    const page = await readAudit(deps.backend, {
      keyId: text("key"),
      account: text("account")?.toLowerCase(),
      action: text("action"),
      from: time("from"),
      to: time("to"),
      cursor,
      limit,
    });
    return sendJson(event, 200, page);
  });
});
