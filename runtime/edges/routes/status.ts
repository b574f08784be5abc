/**
 * GET /api/status: the build's static status part plus live state (cohort, seats, waitlists,
 * limits in force). Every count comes from content or state, none is typed in.
 */

import { readActiveCohort } from "../../domain/cohorts/active-cohort.ts";
import { readSeatsHeld } from "../../domain/cohorts/seat-ledger.ts";
import { perUseMethods } from "../../domain/payments/methods/per-use-read.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { formatUsd } from "../../shared/money.ts";
import type { StatusObject } from "../../shared/schema/status.ts";
import { StatusObjectSchema } from "../../shared/schema/status.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import { countTrialEvaluations, countWaitlist } from "../../state/storage/list-names.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/status",
    operationId: "getStatus",
    metrics: "request",
    security: ["none"],
    summary: "System status",
    description:
      "The status object of the spec. Counts are computed from content and state; `retrieval_limits` are the limits in force (RETRIEVAL_LIMITS may raise them). `per_use` lists the reads a caller can pay for one at a time instead of holding a key, per payment method this deployment offers (agent_network: a pay token in `pay-network-pay-id`; http402: x402 with `pay=x402`), with the price and how.",
    responses: { 200: { description: "The status object", schema: StatusObjectSchema } },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("getStatus", async (event) => {
    const build = deps.build.current;
    const { catalog } = build;
    const limits = limitsInForce(deps);
    const paid = catalog.verticals.filter((v) => v.paid);
    const now = deps.clock.now();
    const [active, inauguralRegistered, waitlists, povCount] = await Promise.all([
      readActiveCohort(deps.backend),
      // The seats the cap counts, as GET /api/waitlist shows them: never more than the cap.
      readSeatsHeld(deps.backend, "inaugural", now),
      Promise.all(paid.map((v) => countWaitlist(deps.backend, v.slug))),
      countTrialEvaluations(deps.backend),
    ]);
    const inaugural = catalog.cohorts.find((c) => c.name === "inaugural")!;
    const status: StatusObject = {
      object: "system_status",
      ...build.status,
      timestamp: new Date(now).toISOString(),
      api_version: catalog.api_version,
      active_cohort: active,
      cohort_structure: Object.fromEntries(
        catalog.cohorts.map((c) => [c.name, { member_cap: c.member_cap, price: formatUsd(c.price_usd_micros) }]),
      ),
      total_inaugural_registered: inauguralRegistered,
      inaugural_member_cap: inaugural.member_cap,
      inaugural_seats_remaining: Math.max(0, inaugural.member_cap - inauguralRegistered),
      inaugural_status: inauguralRegistered < inaugural.member_cap ? "open" : "full",
      verticals: Object.fromEntries(paid.map((v, i) => [v.slug, { cohort: active, waitlist_registered: waitlists[i]! }])),
      retrieval_limits: {
        per_key_monthly: limits.per_key_monthly,
        volume_monthly_5_keys: limits.volume_monthly_5_keys,
        hourly_rate_limit: limits.hourly_rate_limit,
        daily_standard: limits.daily_standard,
        daily_scale: limits.daily_scale,
        overage_per_call: limits.overage_per_call_usd_micros / 1_000_000,
      },
      community_evidence: { ...build.status.community_evidence, trial_evaluations: povCount },
      per_use: perUseMethods().flatMap((m) => m.perUse.describe(deps) ?? []),
    };
    return sendJson(event, 200, status, { "cache-control": "no-cache" });
  });
});
