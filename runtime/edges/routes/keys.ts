/**
 * GET /api/keys: the presented key's own record with usage, quota and daily usage history (never anyone else's).
 * POST /api/keys: admin issuance of membership keys (1–5, optionally permanent and labelled).
 */

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
import { limitsInForce } from "../../state/releases/build-ref.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(IssueKeysRequestSchema);

export default defineRoutes((route, deps) => {
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
