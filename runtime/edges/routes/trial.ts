/**
 * POST /api/trial: one active trial per agent and vertical (409 while it lasts), and a per-client
 * limit on trial creation so a farm of agent ids from one address cannot mint keys endlessly.
 */

import { describeTrialRule, trialVerticals } from "../../domain/access/vertical-groups.ts";
import { readIdentifier } from "../../domain/accounts/identifier.ts";
import { readActiveCohort } from "../../domain/cohorts/active-cohort.ts";
import { issueTrialKey } from "../../domain/payments/purchases/issue-keys.ts";
import { apiError } from "../../shared/errors.ts";
import { compileValidator, readJsonBody } from "../../shared/http/body.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { TrialRequestSchema } from "../../shared/schema/requests.ts";
import { TrialResponseSchema } from "../../shared/schema/responses.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(TrialRequestSchema);

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "post",
    path: "/api/trial",
    operationId: "createTrial",
    metrics: "request",
    security: ["none"],
    summary: "Request a trial key",
    description:
      "One active trial per agent_id and vertical (409 while it lasts); at most TRIALS_PER_CLIENT_HOUR trial keys per client address per hour (429). The key is shown only in this response.",
    body: TrialRequestSchema,
    responses: {
      200: { description: "The trial key", schema: TrialResponseSchema },
      400: { description: "Invalid body or vertical" },
      409: { description: "Active trial exists" },
      429: { description: "Too many trials from this client" },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("createTrial", async (event) => {
    const body = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    const build = deps.build.current;
    const vertical = build.resolveVertical(body.vertical ?? "ai-compliance");
    if (!vertical?.trial || vertical.status !== "live") {
      const offered = trialVerticals(build.catalog.verticals);
      throw apiError("vertical_not_allowed", {
        detail: `Trials exist for ${offered.map((v) => `${v.slug} (${describeTrialRule(v)})`).join(", ")}; \`ethics\` is ai-compliance.`,
        errors: [{ pointer: "/vertical", message: `must be one of ${offered.map((v) => v.slug).join(", ")}` }],
      });
    }
    // Refused before the per-client limit is consumed; one trial per agent as people read its name.
    const agentId = readIdentifier(body.agent_id, "/agent_id");
    const limits = limitsInForce(deps);
    const now = deps.clock.now();
    const expiresAt = now + limits.trial_hours * 3_600_000;
    // The per-client limit is consumed first, atomically: a burst from one address cannot pass it.
    const ip = clientAddress(event, deps.config);
    await deps.shared.limits.assert("trial", ip, deps.config.trialsPerClientHour, now, {
      code: "rate_limited",
      detail: "Too many trial keys from this client in the last hour.",
    });
    const issued = await issueTrialKey(
      deps,
      { vertical: vertical.slug, agentId, cohort: await readActiveCohort(deps.backend), expiresAt },
      now,
    );
    if (!issued)
      throw apiError("trial_exists", {
        detail: "This agent already holds an active trial key for this vertical; it is shown only once, at creation.",
      });
    const key = issued.key;
    const base = deps.config.publicBaseUrl ?? "";
    return sendJson(event, 200, {
      key,
      type: "trial",
      vertical: vertical.slug,
      expires_at: new Date(expiresAt).toISOString(),
      calls_limit: limits.trial_calls,
      instructions: {
        header: `Send the key as the X-Service-Key header on every request; it is shown only this once.`,
        index: `GET ${base}/api/demo?vertical=${vertical.slug}`,
        node: `GET ${base}/api/demo?vertical=${vertical.slug}&node=<node id>`,
        lean: `Add &lean=true to get only the node data and next_nodes.`,
        verify: `GET ${base}/api/verify`,
        unlocks:
          "nodes" in vertical.trial
            ? `All four layers of every ${vertical.slug} node for ${limits.trial_hours} hours, up to ${limits.trial_calls} calls.`
            : `All four layers of the first ${"first" in vertical.trial ? vertical.trial.first : 0} ${vertical.slug} modules (marked trial in the index) for ${limits.trial_hours} hours, up to ${limits.trial_calls} calls.`,
      },
    });
  });
});
