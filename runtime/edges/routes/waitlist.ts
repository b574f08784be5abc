/** GET /api/waitlist: seats and cohort status. POST /api/waitlist: join a paid vertical's waitlist. */

import { describeWaitlist, joinWaitlist } from "../../domain/growth/waitlist.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { WaitlistRequestSchema } from "../../shared/schema/growth-requests.ts";
import { WaitlistJoinedSchema, WaitlistOverviewSchema } from "../../shared/schema/growth-responses.ts";
import { COHORT_RULE } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(WaitlistRequestSchema);

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/waitlist",
    operationId: "getWaitlist",
    metrics: "request",
    security: ["none"],
    summary: "Waitlist overview: seats per cohort, cohort status, waitlists per paid vertical",
    description: [
      "Cohort `status`: `closed` for tiers before the active one, `open` or `full` for the active one, `upcoming` after it. `seats_registered` counts every seat held over all cohorts (one per member account, however many keys it holds, including a new member's purchase under way); `cohorts[].seats_claimed` for inaugural equals `total_inaugural_registered` in GET /api/status.",
      COHORT_RULE,
    ].join("\n\n"),
    responses: { 200: { description: "Seat counts and cohort status", schema: WaitlistOverviewSchema } },
  },
  {
    method: "post",
    path: "/api/waitlist",
    operationId: "joinWaitlist",
    metrics: "request",
    security: ["none"],
    summary: "Join a paid vertical's waitlist",
    description: [
      "Only the 15 paid verticals (any other known vertical 400 `vertical_not_allowed`, an unknown slug 400 `vertical_unknown`). `agent_id` is required unless a `contact` email takes its place (neither: 400 `validation_failed`); `contact` must be an email.",
      "The waitlisted party is the agent_id, or the lower-cased contact when no agent_id is given. Joining again returns the original position and confirmation with `already_registered: true`; positions are exact under concurrency. The status object's `verticals.<slug>.waitlist_registered` counts the same list.",
      "One client address may bring NEW_IDENTITIES_PER_CLIENT_DAY (default 50) parties not on a waitlist before per UTC day; beyond, 429 `rate_limited` with Retry-After and no position is taken. Re-joins of known parties are not limited.",
    ].join("\n\n"),
    body: WaitlistRequestSchema,
    responses: {
      200: { description: "Confirmation and position", schema: WaitlistJoinedSchema },
      400: { description: "Invalid body, not a paid vertical" },
      429: { description: "Too many new parties from this client today", headers: ["Retry-After"] },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("getWaitlist", async (event) => sendJson(event, 200, await describeWaitlist(deps), { "cache-control": "no-cache" }));

  route("joinWaitlist", async (event) => {
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    return sendJson(event, 200, await joinWaitlist(deps, body, clientAddress(event, deps.config), deps.clock.now()));
  });
});
