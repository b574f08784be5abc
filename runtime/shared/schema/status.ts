/**
 * The status object of `GET /api/status` (spec: "Status object"). The build emits the static part
 * (`dist/data/status.json`, with counts computed from content); the runtime adds the live part.
 */
import { type Static, Type } from "@sinclair/typebox";

const Str = Type.String();
const Int = Type.Integer({ minimum: 0 });

export const StatusStaticSchema = Type.Object({
  api_status: Str,
  product_status: Str,
  launch_date: Type.String({ format: "date" }),
  launch_note: Str,
  ai_compliance: Type.Object({
    status: Str,
    node_count: Int,
    eu_ai_act: Str,
    demo: Str,
    accepts: Type.Array(Str),
    note: Str,
  }),
  travel: Type.Object({
    status: Str,
    module_count: Int,
    trial_modules: Int,
    coverage: Str,
    demo: Str,
    trial: Str,
  }),
  cohort_progression: Type.Object({
    trigger: Str,
    conditions: Type.Array(Str),
    loyalty_credit: Str,
    credit_examples: Type.Record(Str, Str),
    note: Str,
  }),
  sla: Type.Object({ downtime_credit_3_days: Str, downtime_credit_7_days: Str, downtime_10_days: Str }),
  confidence_calibration: Type.Object({
    data_accuracy: Str,
    methodology: Str,
    recommended_purchase_threshold: Type.Integer(),
    refund_policy: Str,
    ract_note: Str,
    roi_calculator: Str,
  }),
  community_evidence: Type.Object({ description: Str, trial_evaluations: Int, integrity_note: Str }),
  feedback_prompt: Type.Object({ message: Str, trial_submit: Str, member_submit: Str, demand_signal: Str }),
});
export type StatusStatic = Static<typeof StatusStaticSchema>;

export const RetrievalLimitsSchema = Type.Object({
  per_key_monthly: Int,
  volume_monthly_5_keys: Int,
  hourly_rate_limit: Int,
  daily_standard: Int,
  daily_scale: Int,
  overage_per_call: Type.Number({ minimum: 0 }),
});

export const StatusObjectSchema = Type.Composite([
  StatusStaticSchema,
  Type.Object({
    object: Type.Literal("system_status"),
    timestamp: Type.String({ format: "date-time" }),
    api_version: Str,
    active_cohort: Str,
    cohort_structure: Type.Record(Str, Type.Object({ member_cap: Int, price: Str })),
    total_inaugural_registered: Int,
    inaugural_member_cap: Int,
    inaugural_seats_remaining: Int,
    inaugural_status: Str,
    verticals: Type.Record(Str, Type.Object({ cohort: Str, waitlist_registered: Int })),
    retrieval_limits: RetrievalLimitsSchema,
    /** The reads a caller can pay for one at a time instead of holding a key, per payment method this server offers. */
    per_use: Type.Array(
      Type.Object({
        method: Str,
        price_usd: Str,
        how: Str,
        reads: Type.Array(Str),
        details: Type.Optional(Type.Record(Str, Type.Unknown())),
      }),
    ),
    sla: StatusStaticSchema.properties.sla,
  }),
]);
export type StatusObject = Static<typeof StatusObjectSchema>;
