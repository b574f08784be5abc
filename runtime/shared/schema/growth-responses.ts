/**
 * Response bodies of the growth endpoints. The spec names none of these fields; these
 * declarations are the decision, published in /openapi.json. Money is integer micro-dollars,
 * with a display string beside it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { CohortNameSchema, VerticalStatusSchema } from "./catalog.ts";
import { REFERRAL_METHODS } from "./growth-requests.ts";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const WaitlistJoinedSchema = Type.Object({
  /** Stable for (vertical, agent): a repeat join returns the same confirmation and position. */
  confirmation: Type.String(),
  position: Type.Integer({ minimum: 1 }),
  vertical: Type.String(),
  already_registered: Type.Boolean(),
  waitlist_registered: Type.Integer({ minimum: 0 }),
  message: Type.String(),
});

export const CohortSeatsSchema = Type.Object({
  name: CohortNameSchema,
  member_cap: Type.Integer(),
  price: Type.String(),
  price_usd_micros: Type.Integer(),
  loyalty_credit_usd_micros: Type.Integer(),
  seats_claimed: Type.Integer({ minimum: 0 }),
  seats_remaining: Type.Integer({ minimum: 0 }),
  /** closed: an earlier tier (prices grandfathered); open/full: the active tier; upcoming: later tiers. */
  status: Type.Union([Type.Literal("closed"), Type.Literal("open"), Type.Literal("full"), Type.Literal("upcoming")]),
});

export const WaitlistOverviewSchema = Type.Object({
  active_cohort: CohortNameSchema,
  inaugural_status: Type.String(),
  seats_registered: Type.Integer({ minimum: 0 }),
  active_cohort_seats_remaining: Type.Integer({ minimum: 0 }),
  cohorts: Type.Array(CohortSeatsSchema),
  progression: Type.Object({
    condition: Type.String(),
    outcome_submissions: Type.Integer({ minimum: 0 }),
    mean_outcome_confidence: Nullable(Type.Number()),
    threshold: Type.Number(),
  }),
  verticals: Type.Array(
    Type.Object({
      vertical: Type.String(),
      title: Type.String(),
      status: VerticalStatusSchema,
      waitlist_registered: Type.Integer({ minimum: 0 }),
    }),
  ),
  total_waitlist_registered: Type.Integer({ minimum: 0 }),
});

export const InterestRegisteredSchema = Type.Object({
  vertical: Type.String(),
  registered: Type.Literal(true),
  /** false when this agent had already signalled this vertical (the count is unchanged). */
  counted: Type.Boolean(),
  signals: Type.Integer({ minimum: 0 }),
  threshold: Type.Integer(),
  build_queue_active: Type.Boolean(),
});

export const InterestSummarySchema = Type.Object({
  threshold: Type.Integer(),
  verticals: Type.Array(
    Type.Object({
      rank: Type.Integer({ minimum: 1 }),
      vertical: Type.String(),
      title: Type.String(),
      /** `proposed`: a slug not in the catalogue, signalled by agents (its title is the slug). */
      status: Type.Union([VerticalStatusSchema, Type.Literal("proposed")]),
      signals: Type.Integer({ minimum: 0 }),
      build_queue_active: Type.Boolean(),
      remaining_to_activate: Type.Integer({ minimum: 0 }),
    }),
  ),
});

export const HighlightedReviewSchema = Type.Object({
  highlight: Type.Union([Type.Literal("top"), Type.Literal("critical")]),
  confidence_score: Type.Number(),
  intent_to_subscribe: Nullable(Type.Boolean()),
  review: Type.String(),
  vertical: Type.String(),
  submitted_at: Type.String(),
});

export const PovAggregateSchema = Type.Object({
  evaluations: Type.Integer({ minimum: 0 }),
  mean_confidence_score: Nullable(Type.Number()),
  intent_to_subscribe: Type.Object({
    yes: Type.Integer({ minimum: 0 }),
    no: Type.Integer({ minimum: 0 }),
    unspecified: Type.Integer({ minimum: 0 }),
    /** yes / evaluations; null with no evaluations. */
    share: Nullable(Type.Number()),
  }),
  highlighted_reviews: Type.Array(HighlightedReviewSchema),
  highlight_rule: Type.String(),
});
export type PovAggregate = Static<typeof PovAggregateSchema>;

export const PovRecordedSchema = Type.Object({
  recorded: Type.Literal(true),
  trial_key_id: Type.String(),
  /** true when this trial key had submitted before: the new submission replaced the earlier one. */
  replaced: Type.Boolean(),
  submitted_at: Type.String(),
  /** Trial keys that have submitted, this one included (GET /api/telemetry/pov has the full aggregate). */
  evaluations: Type.Integer({ minimum: 1 }),
});

export const OutcomeRecordedSchema = Type.Object({
  recorded: Type.Literal(true),
  id: Type.String(),
  kind: Type.Literal("proof_of_outcome"),
  submitted_at: Type.String(),
  aggregate: Type.Object({ submissions: Type.Integer({ minimum: 0 }), mean_confidence_score: Nullable(Type.Number()) }),
  cohort: Type.Object({ active_cohort: CohortNameSchema, opened: Nullable(CohortNameSchema) }),
});

export const ReferralLoggedSchema = Type.Object({
  referral: Type.Object({
    id: Type.String(),
    referring_key_id: Type.String(),
    referred_agent_id: Type.String(),
    method: Nullable(Type.Union(REFERRAL_METHODS.map((m) => Type.Literal(m)))),
    /** pending: until the referred agent pays for a membership; then credited (within the cycle's cap) or cap_reached (no credit). */
    status: Type.Union([Type.Literal("pending"), Type.Literal("credited"), Type.Literal("cap_reached")]),
    credited_usd_micros: Type.Integer({ minimum: 0 }),
    credited: Type.String(),
    /** The billing cycle the credit counted in; null while pending. */
    cycle: Nullable(Type.String()),
    created_at: Type.String(),
    qualified_at: Nullable(Type.String()),
  }),
  credit_balance: Type.Object({ usd_micros: Type.Integer({ minimum: 0 }), amount: Type.String(), applies: Type.Literal("next_renewal") }),
  cycle: Type.Object({
    id: Type.String(),
    referrals_credited: Type.Integer({ minimum: 0 }),
    max_credited: Type.Integer({ minimum: 0 }),
    credit_cap_usd_micros: Type.Integer({ minimum: 0 }),
  }),
});
