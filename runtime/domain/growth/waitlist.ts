/**
 * The waitlist of the paid verticals and the seat overview. A position is claimed atomically
 * (`claimPosition`), so it is exact under concurrency and a repeat join returns the original
 * position. The waitlisted party is the agent_id, or the contact email when no agent_id is given
 * (both compared folded, `accounts/identifier.ts`); the two are distinct identities.
 */

import { createHash } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import { apiError } from "../../shared/errors.ts";
import { formatUsd } from "../../shared/money.ts";
import type { WaitlistRequest } from "../../shared/schema/growth-requests.ts";
import type { WaitlistJoinedSchema, WaitlistOverviewSchema } from "../../shared/schema/growth-responses.ts";
import { readIdentifier } from "../accounts/identifier.ts";
import { readActiveCohort } from "../cohorts/active-cohort.ts";
import { cohortStatusOf, meanConfidence, PROGRESSION_CONFIDENCE_MICROS, SCORE_MICROS } from "../cohorts/cohort-machine.ts";
import { readOutcomeTotals } from "../cohorts/cohort-store.ts";
import { readSeatsHeld } from "../cohorts/seat-ledger.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { createWaitlistStore, type WaitlistEntry } from "./waitlist-store.ts";

export async function joinWaitlist(
  deps: DomainDeps,
  body: WaitlistRequest,
  client: string,
  now: number,
): Promise<Static<typeof WaitlistJoinedSchema>> {
  const vertical = deps.build.current.resolveVertical(body.vertical);
  if (!vertical) throw apiError("vertical_unknown", { errors: [{ pointer: "/vertical", message: "must be a paid vertical slug" }] });
  if (!vertical.paid) {
    throw apiError("vertical_not_allowed", {
      detail: `${vertical.slug} is not a paid vertical; the waitlist takes only the paid verticals.`,
      errors: [{ pointer: "/vertical", message: "must be a paid vertical" }],
    });
  }
  if (body.agent_id === undefined && body.contact === undefined) {
    throw apiError("validation_failed", {
      detail: "agent_id is required (a contact email may take its place).",
      errors: [{ pointer: "/agent_id", message: "required unless contact is given" }],
    });
  }
  const agentId = body.agent_id === undefined ? null : readIdentifier(body.agent_id, "/agent_id");
  const contact = body.contact === undefined ? null : readIdentifier(body.contact, "/contact");
  const member = agentId !== null ? `agent:${agentId}` : `contact:${contact}`;
  const store = createWaitlistStore(deps.backend);
  // A client may bring only so many new parties a day: positions are public, and invented agents would push real ones back.
  if (!(await store.hasEntry(vertical.slug, member))) {
    const limit = deps.config.newIdentitiesPerClientDay;
    await deps.shared.limits.assert("waitlist-new", client, limit, now, {
      code: "rate_limited",
      detail: `At most ${limit} new agents or contacts per client per day may join a waitlist.`,
    });
  }
  const claim = await store.claimPosition(vertical.slug, member);
  if (claim.created) {
    const entry: WaitlistEntry = {
      vertical: vertical.slug,
      agent_id: agentId,
      contact,
      position: claim.position,
      joined_at: new Date(now).toISOString(),
    };
    await store.saveEntry(member, entry);
  }
  const registered = await store.count(vertical.slug);
  return {
    confirmation: `wl_${createHash("sha256").update(`${vertical.slug}\n${member}`).digest("hex").slice(0, 20)}`,
    position: claim.position,
    vertical: vertical.slug,
    already_registered: !claim.created,
    waitlist_registered: registered,
    message: claim.created
      ? `Registered for ${vertical.title} at position ${claim.position}.`
      : `Already registered for ${vertical.title}; your position is unchanged (${claim.position}).`,
  };
}

/** GET /api/waitlist: seats per cohort, the progression condition and each paid vertical's waitlist. */
export async function describeWaitlist(deps: DomainDeps): Promise<Static<typeof WaitlistOverviewSchema>> {
  const { catalog } = deps.build.current;
  const paid = catalog.verticals.filter((v) => v.paid);
  const now = deps.clock.now();
  const store = createWaitlistStore(deps.backend);
  const [active, perCohort, perVertical, totals] = await Promise.all([
    readActiveCohort(deps.backend),
    Promise.all(catalog.cohorts.map((c) => readSeatsHeld(deps.backend, c.name, now))),
    Promise.all(paid.map((v) => store.count(v.slug))),
    readOutcomeTotals(deps.backend),
  ]);
  const cohorts = catalog.cohorts.map((c, i) => ({
    name: c.name,
    member_cap: c.member_cap,
    price: formatUsd(c.price_usd_micros),
    price_usd_micros: c.price_usd_micros,
    loyalty_credit_usd_micros: c.loyalty_credit_usd_micros,
    seats_claimed: perCohort[i]!,
    seats_remaining: Math.max(0, c.member_cap - perCohort[i]!),
    status: cohortStatusOf(catalog.cohorts, active, c.name, perCohort[i]!),
  }));
  const inaugural = cohorts.find((c) => c.name === "inaugural")!;
  return {
    active_cohort: active,
    // Same words as the status object: open while inaugural seats remain, full after.
    inaugural_status: inaugural.seats_remaining > 0 ? "open" : "full",
    // One seat per member account, in whichever cohort it holds it: the same count as /api/status.
    seats_registered: perCohort.reduce((a, b) => a + b, 0),
    active_cohort_seats_remaining: cohorts.find((c) => c.name === active)!.seats_remaining,
    cohorts,
    progression: {
      condition:
        "The next tier opens when every seat of the active cohort is claimed and the mean Proof-of-Outcome confidence over all submissions exceeds 0.8.",
      outcome_submissions: totals.submissions,
      mean_outcome_confidence: meanConfidence(totals.submissions, totals.confidenceMicros),
      threshold: PROGRESSION_CONFIDENCE_MICROS / SCORE_MICROS,
    },
    verticals: paid.map((v, i) => ({ vertical: v.slug, title: v.title, status: v.status, waitlist_registered: perVertical[i]! })),
    total_waitlist_registered: perVertical.reduce((a, b) => a + b, 0),
  };
}

// --- Internal helpers ---
