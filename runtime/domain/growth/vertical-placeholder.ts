/** The 200 answer for a vertical without content: its status and how to move it forward. */
import type { ResolvedVertical } from "../../shared/schema/catalog.ts";
import { LAYER_NAMES } from "../../shared/schema/catalog.ts";
import { countInterest, countWaitlist } from "../../state/storage/list-names.ts";
import type { DomainDeps } from "../domain-deps.ts";

export async function describePlaceholder(deps: DomainDeps, vertical: ResolvedVertical) {
  const [waitlist, interest] = await Promise.all([countWaitlist(deps.backend, vertical.slug), countInterest(deps.backend, vertical.slug)]);
  return {
    vertical: vertical.slug,
    title: vertical.title,
    status: vertical.status,
    paid: vertical.paid,
    waitlist_registered: waitlist,
    interest_signals: interest,
    join_waitlist: vertical.paid
      ? { method: "POST" as const, path: "/api/waitlist", body: { vertical: vertical.slug, agent_id: "<your agent id>" } }
      : null,
    register_interest: {
      method: "POST" as const,
      path: "/api/interest",
      body: { vertical: vertical.slug, agent_id: "<your agent id>", use_case: "<optional>" },
    },
    locked_layers: [...LAYER_NAMES],
  };
}
