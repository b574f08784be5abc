/**
 * Demand signals for verticals without live content, and the ranked leaderboard.
 *
 * - A signal names a catalogue vertical whose status is not `live` (live or unknown → 400).
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
import type { AppDeps } from "../deps.ts";
import { limitsInForce } from "../deps.ts";
import { apiError } from "../errors.ts";
import type { InterestRequest } from "../schema/growth-requests.ts";
import type { InterestRegisteredSchema, InterestSummarySchema } from "../schema/growth-responses.ts";
import { interestList } from "../storage/list-names.ts";
import { consumeDaily } from "./daily-limit.ts";

export async function registerInterest(deps: AppDeps, body: InterestRequest, client: string, now: number): Promise<Static<typeof InterestRegisteredSchema>> {
  const vertical = deps.build.current.resolveVertical(body.vertical);
  if (!vertical) throw apiError("vertical_unknown", { errors: [{ pointer: "/vertical", message: "must be a vertical slug" }] });
  if (vertical.status === "live") {
    throw apiError("vertical_not_allowed", {
      detail: `${vertical.slug} already has live content; demand signals are for verticals not built yet.`,
      errors: [{ pointer: "/vertical", message: "must be a vertical without live content" }],
    });
  }
  let member: string;
  if (body.agent_id !== undefined) member = `agent:${body.agent_id}`;
  else if (body.contact !== undefined) member = `contact:${body.contact.toLowerCase()}`;
  else {
    const limit = deps.config.interestAnonPerClientDay;
    await consumeDaily(deps, `interest-anon:${client}`, limit, now, { code: "rate_limited", detail: `At most ${limit} anonymous signals per client per day; send an agent_id to be counted once per vertical.` });
    member = `anon:${randomUUID()}`;
  }
  const recordKey = `interest:signal:${vertical.slug}:${Buffer.from(member).toString("hex")}`;
  if (!member.startsWith("anon:") && !(await deps.backend.records.hasItem(recordKey))) {
    const limit = deps.config.newIdentitiesPerClientDay;
    await consumeDaily(deps, `interest-new:${client}`, limit, now, { code: "rate_limited", detail: `At most ${limit} new agents or contacts per client per day may signal demand.` });
  }
  const claim = await deps.backend.claimPosition(interestList(vertical.slug), member);
  if (claim.created) {
    await deps.backend.records.setItem(recordKey, {
      vertical: vertical.slug,
      agent_id: body.agent_id ?? null,
      contact: body.contact?.toLowerCase() ?? null,
      use_case: body.use_case ?? null,
      at: new Date(now).toISOString(),
    });
  }
  const threshold = limitsInForce(deps).demand_signals_to_activate;
  const signals = await deps.backend.countList(interestList(vertical.slug));
  return { vertical: vertical.slug, registered: true, counted: claim.created, signals, threshold, build_queue_active: signals >= threshold };
}

/** Every vertical without live content, ranked by signals (ties: catalogue order). */
export async function summarizeInterest(deps: AppDeps): Promise<Static<typeof InterestSummarySchema>> {
  const unbuilt = deps.build.current.catalog.verticals.filter((v) => v.status !== "live");
  const counts = await Promise.all(unbuilt.map((v) => deps.backend.countList(interestList(v.slug))));
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
