/** POST /api/interest: a demand signal for an unbuilt vertical. GET /api/interest/summary: the ranking. */

import { registerInterest, summarizeInterest } from "../../domain/growth/interest.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { InterestRequestSchema } from "../../shared/schema/growth-requests.ts";
import { InterestRegisteredSchema, InterestSummarySchema } from "../../shared/schema/growth-responses.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(InterestRequestSchema);

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "post",
    path: "/api/interest",
    operationId: "registerInterest",
    metrics: "request",
    security: ["none"],
    summary: "Register demand for a vertical that is not built yet",
    description: [
      "`vertical` is a catalogue vertical without live content, or any other well-formed slug (lowercase kebab-case, at most 64 characters): demand signals exist to discover verticals nobody listed yet, and a new slug is ranked in the summary as `proposed`. A live vertical (or its alias) is 400 `vertical_not_allowed`; a malformed slug 400 `validation_failed`. At most 200 distinct proposed slugs are kept (400 `vertical_not_allowed` beyond: signal one of them).",
      "Deduplicated per agent and vertical: the agent is `agent_id`, or the lower-cased `contact` without one; a repeat answers 200 with `counted: false` and the unchanged count. A signal with neither is anonymous: each counts once, and one client address may send INTEREST_ANON_PER_CLIENT_DAY (default 10) anonymous signals per UTC day, 429 `rate_limited` with Retry-After beyond (nothing counted). Named signals from agents or contacts not seen before are limited to NEW_IDENTITIES_PER_CLIENT_DAY (default 50) per client address and UTC day, the same way.",
      "500 signals (the catalogue's `demand_signals_to_activate`) activate the vertical's build queue (`build_queue_active`). `use_case` and `contact` are stored, never published.",
    ].join("\n\n"),
    body: InterestRequestSchema,
    responses: {
      200: { description: "Interest registered", schema: InterestRegisteredSchema },
      400: { description: "Invalid body or slug, a live vertical, or no room for another proposed vertical" },
      429: { description: "Too many anonymous signals, or new agents, from this client today", headers: ["Retry-After"] },
    },
  },
  {
    method: "get",
    path: "/api/interest/summary",
    operationId: "getInterestSummary",
    metrics: "request",
    security: ["none"],
    summary: "Ranked demand leaderboard",
    description:
      "Every vertical without live content and every proposed slug (status `proposed`, title = slug), ranked by signal count (ties in catalogue order, then proposal order), with the activation threshold (500), whether each build queue is active and how many signals remain to activate it.",
    responses: { 200: { description: "The ranking", schema: InterestSummarySchema } },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("registerInterest", async (event) => {
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    return sendJson(event, 200, await registerInterest(deps, body, clientAddress(event, deps.config), deps.clock.now()));
  });

  route("getInterestSummary", async (event) => sendJson(event, 200, await summarizeInterest(deps), { "cache-control": "no-cache" }));
});
