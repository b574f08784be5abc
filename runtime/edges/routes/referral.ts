/** POST /api/referral: a member or trial agent logs a referral; $1.50 credit once the referred agent pays, 4 per billing cycle. */

import { requireKey } from "../../domain/access/require-key.ts";
import { logReferral } from "../../domain/growth/referral.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { ReferralRequestSchema } from "../../shared/schema/growth-requests.ts";
import { ReferralLoggedSchema } from "../../shared/schema/growth-responses.ts";
import { KEY_HEADER } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(ReferralRequestSchema);

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "post",
    path: "/api/referral",
    operationId: "logReferral",
    metrics: "request",
    summary: "Log a referral and earn credit",
    description: [
      "A membership or trial key in X-Service-Key (as the spec's authentication table lists; none 401 `key_missing`, a bad key 401 `key_*`). `referring_key` must be that same key (else 403 `key_mismatch`); `method` is one of agent-to-agent, volume-broadcast, principal-redirect (else 400).",
      "Referring your own agent_id or account is 400 `self_referral`; an agent that already holds a membership is 409 `already_member` (credit is for new members); an agent can be referred once, by anyone: a second referral of the same agent is 409 `already_referred`.",
      "The referral is logged `pending`, with no credit: an agent id anyone can invent earns nothing. When the referred agent becomes a paying member (a checkout paid by card, agent-network token or x402 issues it keys; admin-issued keys do not count), the referral is `credited` $1.50 if it is among the referrer's first 4 of that billing cycle ($6 maximum), else `cap_reached` with 0. The billing cycle is the UTC calendar month in which the referral qualifies. Credit is owed to the referrer's account (agent_id or contact; for a trial key, its agent_id, so it is there when that agent becomes a member) and applied at the next renewal; `credit_balance` is what the account is owed now, including loyalty credits, and GET /api/keys shows it with every grant.",
    ].join("\n\n"),
    security: ["serviceKey"],
    params: [KEY_HEADER],
    body: ReferralRequestSchema,
    responses: {
      200: { description: "The logged referral and the credit balance", schema: ReferralLoggedSchema },
      400: { description: "Invalid body or self-referral" },
      401: { description: "Missing or bad key" },
      403: { description: "referring_key is not the caller's key" },
      409: { description: "This agent is already a member, or was already referred" },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("logReferral", async (event) => {
    const now = deps.clock.now();
    const caller = await requireKey(event, deps, { now, membership: false });
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    return sendJson(event, 200, await logReferral(deps, caller, body, now));
  });
});
