/**
 * POST /api/telemetry/pov and GET /api/telemetry/pov: Proof-of-Value from trial keys and its
 * public aggregate. POST /api/telemetry: a member's Proof-of-Outcome (membership key only).
 */

import { requireKey } from "../../domain/access/require-key.ts";
import { submitProofOfOutcome } from "../../domain/growth/proof-of-outcome.ts";
import { createPovAggregator, HIGHLIGHT_RULE, submitProofOfValue } from "../../domain/growth/proof-of-value.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { PovRequestSchema, TelemetryRequestSchema } from "../../shared/schema/growth-requests.ts";
import { OutcomeRecordedSchema, PovAggregateSchema, PovRecordedSchema } from "../../shared/schema/growth-responses.ts";
import { COHORT_RULE, KEY_HEADER } from "../openapi/fragments.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const povValidator = compileValidator(PovRequestSchema);
const telemetryValidator = compileValidator(TelemetryRequestSchema);

/** How long one computed Proof-of-Value aggregate is served before it is recomputed. */
const POV_AGGREGATE_TTL_MS = 2000;

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "post",
    path: "/api/telemetry/pov",
    operationId: "submitProofOfValue",
    metrics: "request",
    summary: "Submit a Proof-of-Value evaluation of a trial",
    description: [
      "Key header required (none 401 `key_missing`, bad 401 `key_*`). The body's `trial_key` must be a trial key issued here and not revoked (else 400 `trial_key_invalid`); it may have expired. The caller's key must be that trial key itself, or a membership key of the same agent (its agent_id or account equals the trial's agent_id), else 403 `key_mismatch`.",
      "Bounds: `confidence_score` 0 to 1 inclusive (1.0000001 is 400), `review` at most 1024 characters (1025 is 400), unknown fields 400.",
      "Each trial key counts once: a repeat replaces its earlier submission (`replaced: true`) and neither `evaluations` nor the status object's `community_evidence.trial_evaluations` grows.",
    ].join("\n\n"),
    security: ["serviceKey"],
    params: [KEY_HEADER],
    body: PovRequestSchema,
    responses: {
      200: { description: "Proof-of-Value recorded", schema: PovRecordedSchema },
      400: { description: "Invalid body or trial_key" },
      401: { description: "Missing, malformed, unknown, revoked or expired key" },
      403: { description: "The caller's key may not report for this trial key" },
    },
  },
  {
    method: "get",
    path: "/api/telemetry/pov",
    operationId: "getProofOfValue",
    metrics: "request",
    security: ["none"],
    summary: "Aggregate of trial evaluations",
    description: [
      "Public. Over the current submission of every trial key: the count, the mean `confidence_score` (6 decimals), intent to subscribe (yes / no / unspecified counts and `share` = yes ÷ evaluations) and highlighted reviews.",
      `Highlighted reviews: ${HIGHLIGHT_RULE} Reviews are shown without any key, agent or contact.`,
      "The aggregate is computed at most once every 2 seconds per instance (concurrent readers share one computation; a submission on the same instance refreshes it at once), so another instance's submission may take up to 2 seconds to appear.",
    ].join("\n\n"),
    responses: { 200: { description: "The aggregate", schema: PovAggregateSchema } },
  },
  {
    method: "post",
    path: "/api/telemetry",
    operationId: "submitMemberTelemetry",
    metrics: "request",
    summary: "Member feedback: Proof-of-Outcome",
    description: [
      "Membership key required in X-Service-Key: none 401 `key_missing`, a bad key 401 `key_*`, a trial key, a valid key of the wrong kind, 403 `key_kind_not_allowed` (Proof-of-Outcome needs a paid key; trials report at POST /api/telemetry/pov).",
      "Body: `confidence_score` 0 to 1 inclusive (required) — how confident the member is that its outcome is due to the retrieved knowledge; optional outcome fields: `outcome` (succeeded, partially_succeeded, failed), `vertical`, `nodes_used`, `tasks_completed`, `errors_prevented`, `tokens_saved`, `notes` (≤1024 characters). Every accepted submission is kept and counts in the aggregate (not one per member).",
      "Limit: one membership key may submit OUTCOMES_PER_KEY_DAY (default 20) times per UTC day. Beyond that the submission is refused with 429 `outcome_limit_reached` and Retry-After (seconds to the next UTC midnight): nothing is stored and the aggregate does not move. Refusing, rather than accepting without counting, tells the agent at once that the submission did not count.",
      COHORT_RULE,
      "The response carries the aggregate after this submission and `cohort.opened`, the tier this submission opened (null if none).",
    ].join("\n\n"),
    security: ["serviceKey"],
    params: [KEY_HEADER],
    body: TelemetryRequestSchema,
    responses: {
      200: { description: "Proof-of-Outcome recorded", schema: OutcomeRecordedSchema },
      400: { description: "Invalid body" },
      401: { description: "Missing or bad key" },
      403: { description: "A trial key: Proof-of-Outcome needs a membership key" },
      429: {
        description: "`outcome_limit_reached`: this key's submissions for the UTC day are used up; nothing was recorded",
        headers: ["Retry-After"],
      },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  const aggregator = createPovAggregator(deps, { ttlMs: POV_AGGREGATE_TTL_MS });

  route("submitProofOfValue", async (event) => {
    const now = deps.clock.now();
    const caller = await requireKey(event, deps, { now, membership: false });
    const body = await readJsonBody(event, povValidator, deps.config.maxBodyBytes);
    const recorded = await submitProofOfValue(deps, caller, body, now);
    aggregator.invalidate();
    return sendJson(event, 200, recorded);
  });

  route("getProofOfValue", async (event) => sendJson(event, 200, await aggregator.read(deps.clock.now()), { "cache-control": "no-cache" }));

  route("submitMemberTelemetry", async (event) => {
    const now = deps.clock.now();
    const caller = await requireKey(event, deps, {
      now,
      membership: true,
      detail: "Proof-of-Outcome needs a paid membership key; trial keys report Proof-of-Value at POST /api/telemetry/pov.",
    });
    const body = await readJsonBody(event, telemetryValidator, deps.config.maxBodyBytes);
    return sendJson(event, 200, await submitProofOfOutcome(deps, caller, body, now));
  });
});
