/**
 * GET /api/admin/audit: the audit trail (audit/audit-log.ts), newest first, filtered by key,
 * account, action and time, a page at a time. Admin bearer, like every admin route.
 */

import { Type } from "@sinclair/typebox";
import { guardAdmin } from "../../domain/access/admin.ts";
import { AUDIT_PAGE_MAX, readAudit } from "../../domain/audit/audit-log.ts";
import { apiError } from "../../shared/errors.ts";
import { requestContext } from "../../shared/http/context.ts";
import { readSingleParam } from "../../shared/http/query.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { AuditPageSchema } from "../../shared/schema/admin-keys.ts";
import { ADMIN_ERRORS } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/admin/audit",
    operationId: "readAudit",
    metrics: "request",
    summary: "The audit trail (admin)",
    description: [
      "Every administrative and money event, newest first: keys issued, revoked, re-rolled, relabelled and given an expiry; every state a purchase enters (reserved, awaiting_payment, charging, unconfirmed, charged, issued, released, refund_due) and an operator's acknowledgement (`purchase.refunded` for a refund due); each payment method's configuration at start; releases published and rolled back. Each entry has its time, actor (an admin bearer as `admin:` and a digest prefix, `cli:<user>`, `payment:<method>`, `system`), action, subject, outcome, account and key ids.",
      "Filters: `key` (a key id), `account`, `action` (exact, or a prefix ending in `.` such as `purchase.`), `from` and `to` (ISO 8601, `to` exclusive). Pages of `limit` entries (default 100, at most 500); pass `next` as `cursor` for the next. Entries never hold a secret: no key, bearer, payment token or signature, no card data. Kept AUDIT_RETENTION_DAYS days. `vkr audit` prints the same.",
    ].join("\n\n"),
    security: ["adminBearer"],
    params: [
      { name: "key", in: "query", schema: Type.String({ pattern: "^[0-9a-f]{12}$" }), description: "Only entries about this key id" },
      {
        name: "account",
        in: "query",
        schema: Type.String({ minLength: 1, maxLength: 200 }),
        description: "Only entries about this account",
      },
      {
        name: "action",
        in: "query",
        schema: Type.String({ minLength: 1, maxLength: 60 }),
        description: "An action, or a prefix ending in .",
      },
      { name: "from", in: "query", schema: Type.String(), description: "From this time (ISO 8601)" },
      { name: "to", in: "query", schema: Type.String(), description: "Before this time (ISO 8601)" },
      { name: "cursor", in: "query", schema: Type.String(), description: "`next` of the previous page" },
      { name: "limit", in: "query", schema: Type.Integer({ minimum: 1, maximum: 500 }), description: "Entries per page (default 100)" },
    ],
    responses: {
      200: { description: "A page of entries", schema: AuditPageSchema },
      400: { description: "A bad filter or cursor" },
      ...ADMIN_ERRORS,
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
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
