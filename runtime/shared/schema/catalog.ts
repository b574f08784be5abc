/**
 * The vertical catalogue, cohorts, limits and static status parts: authored as YAML under
 * `content/_catalog/`, validated by the build, emitted as `dist/data/catalog.json`.
 */
import { type Static, Type } from "@sinclair/typebox";

export const SLUG_RE = "^[a-z0-9]+(-[a-z0-9]+)*$";
export const LAYER_NAMES = ["logic", "directive", "skill", "action"] as const;
export type LayerName = (typeof LAYER_NAMES)[number];
export const LayerNameSchema = Type.Union(LAYER_NAMES.map((l) => Type.Literal(l)));

export const COHORT_NAMES = ["inaugural", "core", "growth", "scale", "cap"] as const;
export type CohortName = (typeof COHORT_NAMES)[number];
export const CohortNameSchema = Type.Union(COHORT_NAMES.map((c) => Type.Literal(c)));

/** `live` has content; `coming_soon` is the spec's announced group; `planned` is every other paid vertical. */
export const VerticalStatusSchema = Type.Union([Type.Literal("live"), Type.Literal("coming_soon"), Type.Literal("planned")]);
export type VerticalStatus = Static<typeof VerticalStatusSchema>;

/** Which nodes a trial key of this vertical unlocks: every node, or the first N by `order`. */
export const TrialRuleSchema = Type.Union([
  Type.Object({ nodes: Type.Literal("all") }, { additionalProperties: false }),
  Type.Object({ first: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
]);
export type TrialRule = Static<typeof TrialRuleSchema>;

/** Authored entry of `content/_catalog/verticals.yaml`. */
export const VerticalEntrySchema = Type.Object(
  {
    slug: Type.String({ pattern: SLUG_RE }),
    title: Type.String({ minLength: 1 }),
    aliases: Type.Optional(Type.Array(Type.String({ pattern: SLUG_RE }))),
    index_free: Type.Boolean(),
    fully_open: Type.Boolean(),
    coming_soon: Type.Boolean(),
    paid: Type.Boolean(),
    included_with_membership: Type.Boolean(),
    trial: Type.Optional(TrialRuleSchema),
  },
  { additionalProperties: false },
);
export type VerticalEntry = Static<typeof VerticalEntrySchema>;

export const CohortSchema = Type.Object(
  {
    name: CohortNameSchema,
    member_cap: Type.Integer({ minimum: 1 }),
    price_usd_micros: Type.Integer({ minimum: 0 }),
    loyalty_credit_usd_micros: Type.Integer({ minimum: 0 }),
    /** Graduated per-key prices for keys 1..5 of one account, when the cohort has them. */
    graduated_usd_micros: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1, maxItems: 5 })),
  },
  { additionalProperties: false },
);
export type Cohort = Static<typeof CohortSchema>;

/** Field names follow the status object's `retrieval_limits`; the rest are our own operating limits. */
export const LimitsSchema = Type.Object(
  {
    per_key_monthly: Type.Integer({ minimum: 1 }),
    volume_monthly_5_keys: Type.Integer({ minimum: 1 }),
    hourly_rate_limit: Type.Integer({ minimum: 1 }),
    daily_standard: Type.Integer({ minimum: 1 }),
    daily_scale: Type.Integer({ minimum: 1 }),
    overage_per_call_usd_micros: Type.Integer({ minimum: 0 }),
    per_use_price_usd_micros: Type.Integer({ minimum: 0 }),
    trial_calls: Type.Integer({ minimum: 1 }),
    trial_hours: Type.Integer({ minimum: 1 }),
    keys_per_account: Type.Integer({ minimum: 1 }),
    referral_credit_usd_micros: Type.Integer({ minimum: 0 }),
    referrals_per_cycle: Type.Integer({ minimum: 0 }),
    demand_signals_to_activate: Type.Integer({ minimum: 1 }),
    refund_window_days: Type.Integer({ minimum: 0 }),
    refund_max_retrievals: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type Limits = Static<typeof LimitsSchema>;

/** A vertical as the runtime sees it: catalogue entry plus what the build computed. */
export const ResolvedVerticalSchema = Type.Composite([
  Type.Omit(VerticalEntrySchema, ["aliases"]),
  Type.Object({
    aliases: Type.Array(Type.String()),
    status: VerticalStatusSchema,
    node_count: Type.Integer({ minimum: 0 }),
    root: Type.Union([Type.String(), Type.Null()]),
  }),
]);
export type ResolvedVertical = Static<typeof ResolvedVerticalSchema>;

export const CatalogSchema = Type.Object({
  api_version: Type.String(),
  verticals: Type.Array(ResolvedVerticalSchema),
  /** Every accepted slug (canonical and alias) → canonical slug. The one place aliases resolve. */
  slugs: Type.Record(Type.String(), Type.String()),
  cohorts: Type.Array(CohortSchema),
  limits: LimitsSchema,
});
export type Catalog = Static<typeof CatalogSchema>;
