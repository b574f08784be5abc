/**
 * Demand signals for verticals without live content, and the ranked leaderboard.
 *
 * - A signal names a catalogue vertical whose status is not `live`, or any other well-formed slug
 *   (lowercase kebab-case, at most 64 characters): demand signals exist to discover verticals
 *   nobody listed yet. Live verticals and their aliases → 400. A slug not in the
 *   catalogue is "proposed": registered once, ranked with the others; at most
 *   PROPOSED_VERTICALS_MAX distinct ones are kept, so the summary stays bounded.
 * - Signals are deduplicated per (agent, vertical): the agent is agent_id, or the contact email
 *   when no agent_id is given. `claimPosition` on the vertical's interest list makes the count
 *   exact; a repeat answers 200 with `counted: false`.
 * - A signal with neither agent_id nor contact is anonymous: each one counts, and a client address
 *   may send INTEREST_ANON_PER_CLIENT_DAY of them per UTC day (429 beyond, nothing counted).
 * - A client address may bring NEW_IDENTITIES_PER_CLIENT_DAY identities not seen before per UTC
 *   day; repeats of known ones are free.
 */

import { randomUUID } from "node:crypto";
import type { Static } from "@sinclair/typebox";
import { apiError } from "../../shared/errors.ts";
import type { InterestRequest } from "../../shared/schema/growth-requests.ts";
import type { InterestRegisteredSchema, InterestSummarySchema } from "../../shared/schema/growth-responses.ts";
import { limitsInForce } from "../../state/releases/build-ref.ts";
import { readIdentifier } from "../accounts/identifier.ts";
import type { DomainDeps } from "../domain-deps.ts";
import { createInterestStore, type InterestStore } from "./interest-store.ts";

/** Distinct proposed (uncatalogued) slugs kept; each costs one count per summary request. */
export const PROPOSED_VERTICALS_MAX = 200;

export async function registerInterest(
  deps: DomainDeps,
  body: InterestRequest,
  client: string,
  now: number,
): Promise<Static<typeof InterestRegisteredSchema>> {
  const listed = deps.build.current.resolveVertical(body.vertical);
  const vertical = listed ?? { slug: body.vertical, status: "proposed" as const };
  if (vertical.status === "live") {
    throw apiError("vertical_not_allowed", {
      detail: `${vertical.slug} already has live content; demand signals are for verticals not built yet.`,
      errors: [{ pointer: "/vertical", message: "must be a vertical without live content" }],
    });
  }
  const agentId = body.agent_id === undefined ? null : readIdentifier(body.agent_id, "/agent_id");
  const contact = body.contact === undefined ? null : readIdentifier(body.contact, "/contact");
  let member: string;
  if (agentId !== null) member = `agent:${agentId}`;
  else if (contact !== null) member = `contact:${contact}`;
  else {
    const limit = deps.config.interestAnonPerClientDay;
    await deps.shared.limits.assert("interest-anon", client, limit, now, {
      code: "rate_limited",
      detail: `At most ${limit} anonymous signals per client per day; send an agent_id to be counted once per vertical.`,
    });
    member = `anon:${randomUUID()}`;
  }
  const store = createInterestStore(deps.backend);
  if (!member.startsWith("anon:") && !(await store.hasSignal(vertical.slug, member))) {
    const limit = deps.config.newIdentitiesPerClientDay;
    await deps.shared.limits.assert("interest-new", client, limit, now, {
      code: "rate_limited",
      detail: `At most ${limit} new agents or contacts per client per day may signal demand.`,
    });
  }
  // Limits first, then the proposal: a refused signal proposes nothing.
  if (!listed) await _propose(store, vertical.slug, now);
  const claim = await store.claimSignal(vertical.slug, member);
  if (claim.created) {
    await store.saveSignal(member, {
      vertical: vertical.slug,
      agent_id: agentId,
      contact,
      use_case: body.use_case ?? null,
      at: new Date(now).toISOString(),
    });
  }
  const threshold = limitsInForce(deps).demand_signals_to_activate;
  const signals = await store.countSignals(vertical.slug);
  return {
    vertical: vertical.slug,
    registered: true,
    counted: claim.created,
    signals,
    threshold,
    build_queue_active: signals >= threshold,
  };
}

/** Every vertical without live content and every proposed slug, ranked by signals (ties: catalogue order, then proposal order). */
export async function summarizeInterest(deps: DomainDeps): Promise<Static<typeof InterestSummarySchema>> {
  const build = deps.build.current;
  const store = createInterestStore(deps.backend);
  const proposed = await _proposedSlugs(store);
  const unbuilt = [
    ...build.catalog.verticals.filter((v) => v.status !== "live").map((v) => ({ slug: v.slug, title: v.title, status: v.status })),
    // A slug the catalogue gained since it was proposed is listed once, as the catalogue has it.
    ...proposed.filter((p) => !build.resolveVertical(p.slug)).map((p) => ({ slug: p.slug, title: p.slug, status: "proposed" as const })),
  ];
  const counts = await Promise.all(unbuilt.map((v) => store.countSignals(v.slug)));
  const threshold = limitsInForce(deps).demand_signals_to_activate;
  const rows = unbuilt.map((v, i) => ({ v, signals: counts[i]!, order: i })).sort((a, b) => b.signals - a.signals || a.order - b.order);
  return {
    threshold,
    verticals: rows.map((r, i) => ({
      rank: i + 1,
      vertical: r.v.slug,
      title: r.v.title,
      status: r.v.status,
      signals: r.signals,
      build_queue_active: r.signals >= threshold,
      remaining_to_activate: Math.max(0, threshold - r.signals),
    })),
  };
}

// --- Internal helpers ---

/** Registers a slug nobody listed: once per slug; refused when PROPOSED_VERTICALS_MAX are kept. */
async function _propose(store: InterestStore, slug: string, now: number): Promise<void> {
  if (await store.isProposed(slug)) return;
  // Claimed atomically before writing, so a burst of new slugs cannot pass the cap; two racers on
  // one new slug may both claim, which only makes the cap a little conservative.
  if (!(await store.claimProposalPlace(PROPOSED_VERTICALS_MAX, now))) {
    throw apiError("vertical_not_allowed", {
      detail: `${PROPOSED_VERTICALS_MAX} verticals outside the catalogue have been proposed already; signal one of them (GET /api/interest/summary) or a listed one.`,
      errors: [{ pointer: "/vertical", message: "no room for another proposed vertical" }],
    });
  }
  await store.saveProposal({ slug, at: new Date(now).toISOString() });
}

async function _proposedSlugs(store: InterestStore): Promise<Array<{ slug: string; at: string }>> {
  return (await store.proposals()).sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.slug < b.slug ? -1 : 1));
}
