/**
 * POST /api/telemetry/pov and GET /api/telemetry/pov: Proof-of-Value from trial keys and its
 * public aggregate. POST /api/telemetry: a member's Proof-of-Outcome (membership key only).
 */

import { requireKey } from "../../domain/access/require-key.ts";
import { submitProofOfOutcome } from "../../domain/growth/proof-of-outcome.ts";
import { createPovAggregator, submitProofOfValue } from "../../domain/growth/proof-of-value.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { PovRequestSchema, TelemetryRequestSchema } from "../../shared/schema/growth-requests.ts";
import { defineRoutes } from "./route-table.ts";

const povValidator = compileValidator(PovRequestSchema);
const telemetryValidator = compileValidator(TelemetryRequestSchema);

/** How long one computed Proof-of-Value aggregate is served before it is recomputed. */
const POV_AGGREGATE_TTL_MS = 2000;

export default defineRoutes((route, deps) => {
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
