/**
 * GET /api/keys: the presented key's own record with usage, quota and daily usage history (never anyone else's).
 * POST /api/keys: admin issuance of membership keys (1–5, optionally permanent and labelled).
 */

import { Type } from "@sinclair/typebox";
import { guardAdmin } from "../../domain/access/admin.ts";
import { readCredentials } from "../../domain/access/credentials.ts";
import { noteKey } from "../../domain/access/request-caller.ts";
import { readIdentifier } from "../../domain/accounts/identifier.ts";
import { hashKey } from "../../domain/keys/key-secret.ts";
import { describeCredits, describeKey } from "../../domain/keys/key-view.ts";
import { refuseEndedGrace } from "../../domain/keys/manage-key.ts";
import { currentRecord } from "../../domain/keys/revoke-key.ts";
import { readUsageHistory } from "../../domain/metering/usage-history.ts";
import { issueAdminKeys } from "../../domain/payments/purchases/issue-keys.ts";
import { apiError } from "../../shared/errors.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { requestContext } from "../../shared/http/context.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { parseKeyString } from "../../shared/schema/keys.ts";
import { IssueKeysRequestSchema } from "../../shared/schema/requests.ts";
import { KeysIssuedSchema, OwnKeyDetailsSchema } from "../../shared/schema/responses.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import { KEY_HEADER } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(IssueKeysRequestSchema);

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/keys",
    operationId: "getKey",
    metrics: "request",
    summary: "Key details",
    description:
      "The presented key's own record, usage by window and quota, and `credits`: the referral and loyalty credit owed to its account (`balance`, each grant, and every renewal invoice it was applied to; credit is taken off the next card renewal), and `usage_history`: the key's metered calls per UTC day (`{ date, requests }`, oldest first, days without a call left out) over the last 90 days, today included (today's count is live; earlier days are the day counters the meter kept, folded once a day). Revoked and expired keys are still described (status says so). A re-rolled secret describes its key until its grace period ends, then is 401 `key_rerolled`. Prefer the header: a key in the URL can leak through logs (ours redact it).",
    security: ["serviceKey", "serviceKeyQuery"],
    params: [KEY_HEADER, { name: "key", in: "query", schema: Type.String() }],
    responses: {
      200: { description: "Key details", schema: OwnKeyDetailsSchema },
      401: { description: "No key given" },
      404: { description: "Key not found" },
    },
  },
  {
    method: "post",
    path: "/api/keys",
    operationId: "issueKeys",
    metrics: "request",
    summary: "Issue membership keys (admin)",
    description:
      "Admin bearer required: missing → 401, wrong → 403 (also when the server has no ADMIN_KEY). The admin is trusted, so no proof of the account is asked. Issuance runs through the same durable purchase record as a checkout (without a payment): slots, keys and the cohort seat are all-or-nothing across a crash. An account (agent_id or contact) holds at most 5 keys (409 `conflict` beyond); keys for a new account take a seat of the active cohort (409 `cohort_full` while it is full and the next tier closed), keys for a member's account are of its own cohort; an account holding 5 keys is on the volume plan (daily 3000 per key, 50,000 pooled per month). `permanent` keys have no monthly reset: their allowance counts over the key's lifetime.",
    security: ["adminBearer"],
    body: IssueKeysRequestSchema,
    responses: {
      201: { description: "The new keys, each shown only here", schema: KeysIssuedSchema },
      400: { description: "Invalid body" },
      401: { description: "Admin authorization missing" },
      403: { description: "Admin key invalid" },
      409: { description: "Account key cap reached (`conflict`), or a new account while the active cohort is full (`cohort_full`)" },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("getKey", async (event) => {
    const ctx = requestContext(event);
    const { key } = readCredentials(event.req.headers, ctx.url, { allowQueryKey: true });
    if (key === null || key === "") throw apiError("key_missing");
    const entry = parseKeyString(key) ? await deps.keys.get(hashKey(key)) : null;
    const now = deps.clock.now();
    // A re-rolled secret describes its key while its grace lasts, then is refused like at any route.
    if (entry?.replaced_by !== undefined) refuseEndedGrace(entry, now);
    const record = await currentRecord(deps.keys, entry);
    if (!record) throw apiError("key_not_found");
    noteKey(event, record);
    const limits = limitsInForce(deps);
    const [details, credits, history] = await Promise.all([
      describeKey(deps.backend, limits, record, now),
      describeCredits(deps.backend, record),
      readUsageHistory(deps.backend, limits, record, now),
    ]);
    return sendJson(event, 200, { ...details, credits, usage_history: history });
  });

  route("issueKeys", async (event) => {
    await guardAdmin(deps, event);
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    const build = deps.build.current;
    const vertical = body.vertical === "all" ? "all" : build.resolveVertical(body.vertical)?.slug;
    if (!vertical) throw apiError("vertical_unknown", { errors: [{ pointer: "/vertical", message: "must be a vertical slug or all" }] });
    const limits = limitsInForce(deps);
    const now = deps.clock.now();
    const issued = await issueAdminKeys(
      deps,
      {
        vertical,
        quantity: body.quantity ?? 1,
        agentId: body.agent_id === undefined ? undefined : readIdentifier(body.agent_id, "/agent_id"),
        contact: body.contact === undefined ? undefined : _checkedContact(body.contact),
        label: body.label,
        permanent: body.permanent ?? false,
      },
      now,
    );
    const keys = await Promise.all(issued.map(async (i) => ({ key: i.key, ...(await describeKey(deps.backend, limits, i.record, now)) })));
    deps.logger.info("keys issued", { request_id: requestContext(event).requestId, key_ids: issued.map((i) => i.record.id), vertical });
    return sendJson(event, 201, { keys });
  });
});

// --- Internal helpers ---

/** A contact is refused like an agent_id when it hides characters, but kept as typed for delivery. */
function _checkedContact(contact: string): string {
  readIdentifier(contact, "/contact");
  return contact;
}
