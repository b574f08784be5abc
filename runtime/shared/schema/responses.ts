/**
 * Response bodies of the key, trial and verify endpoints and the problem body. The spec leaves
 * these field names open; these declarations are the decision, published in /openapi.json.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ChangelogEntrySchema } from "./artifacts.ts";
import { LayerNameSchema, VerticalStatusSchema } from "./catalog.ts";
import { KeyTypeSchema } from "./keys.ts";
import { EvaluationSchema } from "./rules.ts";
import { CredentialProblemSchema } from "./unlock.ts";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const ProblemSchema = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  instance: Type.String(),
  code: Type.String(),
  hint: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(Type.Object({ pointer: Type.String(), message: Type.String() }))),
});

export const UsageSchema = Type.Object({
  hour: Type.Integer(),
  day: Type.Integer(),
  month: Type.Integer(),
  total_trial: Type.Optional(Type.Integer()),
  overage_calls: Type.Integer(),
  overage_usd_micros: Type.Integer(),
});

export const QuotaSchema = Type.Object({
  hourly_limit: Type.Integer(),
  daily_limit: Type.Integer(),
  monthly_allowance: Nullable(Type.Integer()),
  monthly_pooled: Type.Boolean(),
  trial_calls: Nullable(Type.Integer()),
  remaining: Type.Object({ hour: Type.Integer(), day: Type.Integer(), month: Nullable(Type.Integer()), trial: Nullable(Type.Integer()) }),
  resets: Type.Object({ hour: Type.String(), day: Type.String(), month: Nullable(Type.String()) }),
});

export const KeyDetailsSchema = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal("active"), Type.Literal("revoked"), Type.Literal("expired")]),
  type: KeyTypeSchema,
  vertical: Type.String(),
  cohort: Type.String(),
  plan: Type.String(),
  label: Nullable(Type.String()),
  permanent: Type.Boolean(),
  usage: UsageSchema,
  quota: QuotaSchema,
  created_at: Type.String(),
  expires_at: Nullable(Type.String()),
});
export type KeyDetails = Static<typeof KeyDetailsSchema>;

/** Referral and loyalty credit owed to the key's account, and where it was applied. */
export const KeyCreditsSchema = Type.Object({
  account: Type.String(),
  balance_usd_micros: Type.Integer({ minimum: 0 }),
  balance: Type.String(),
  applies: Type.Literal("next_renewal"),
  granted: Type.Array(
    Type.Object({
      id: Type.String(),
      kind: Type.String(),
      amount_usd_micros: Type.Integer(),
      reason: Type.String(),
      created_at: Type.String(),
    }),
  ),
  applied: Type.Array(Type.Object({ invoice: Type.String(), amount_usd_micros: Type.Integer(), applied_at: Type.String() })),
});

/** A key's metered calls per UTC day, oldest first, days without a call left out (metering/usage-history.ts). */
export const UsageHistorySchema = Type.Array(
  Type.Object({ date: Type.String({ format: "date" }), requests: Type.Integer({ minimum: 1 }) }),
  { maxItems: 90 },
);

/** GET /api/keys: the key holder's own view, with the account's credit and the key's daily usage. */
export const OwnKeyDetailsSchema = Type.Composite([
  KeyDetailsSchema,
  Type.Object({ credits: KeyCreditsSchema, usage_history: UsageHistorySchema }),
]);

export const IssuedKeySchema = Type.Composite([Type.Object({ key: Type.String() }), KeyDetailsSchema]);
export const KeysIssuedSchema = Type.Object({ keys: Type.Array(IssuedKeySchema) });

export const TrialResponseSchema = Type.Object({
  key: Type.String(),
  type: Type.Literal("trial"),
  vertical: Type.String(),
  expires_at: Type.String(),
  calls_limit: Type.Integer(),
  instructions: Type.Object({
    header: Type.String(),
    index: Type.String(),
    node: Type.String(),
    lean: Type.String(),
    verify: Type.String(),
    unlocks: Type.String(),
  }),
});

export const VerifyResponseSchema = Type.Object({
  valid: Type.Boolean(),
  type: Nullable(KeyTypeSchema),
  vertical_access: Type.Array(Type.String()),
  remaining_quota: Nullable(
    Type.Object({ hour: Type.Integer(), day: Type.Integer(), month: Nullable(Type.Integer()), trial: Nullable(Type.Integer()) }),
  ),
  expires_at: Nullable(Type.String()),
  reason: Type.Optional(
    Type.Union([
      Type.Literal("unknown"),
      Type.Literal("malformed"),
      Type.Literal("revoked"),
      Type.Literal("expired"),
      Type.Literal("rerolled"),
    ]),
  ),
});

/** `GET /api/demo` for a vertical without content: what it is and how to move it forward. */
export const VerticalPlaceholderSchema = Type.Object({
  vertical: Type.String(),
  title: Type.String(),
  status: VerticalStatusSchema,
  paid: Type.Boolean(),
  waitlist_registered: Type.Integer(),
  interest_signals: Type.Integer(),
  join_waitlist: Nullable(
    Type.Object({ method: Type.Literal("POST"), path: Type.String(), body: Type.Record(Type.String(), Type.String()) }),
  ),
  register_interest: Type.Object({ method: Type.Literal("POST"), path: Type.String(), body: Type.Record(Type.String(), Type.String()) }),
  locked_layers: Type.Array(LayerNameSchema),
  credential_problem: Type.Optional(CredentialProblemSchema),
});

/** `GET /v1/delta`: one page of the change feed. */
export const DeltaResponseSchema = Type.Object({
  entries: Type.Array(ChangelogEntrySchema),
  /** Position after the last entry of this page (or the cursor given, on an empty page); null only when there is neither. */
  next_cursor: Nullable(Type.String()),
  has_more: Type.Boolean(),
});
export type DeltaResponse = Static<typeof DeltaResponseSchema>;

/** `POST /api/evaluate`: the evaluator's answer plus which node (and which version of it) answered. */
export const EvaluateResponseSchema = Type.Composite([
  Type.Object({ vertical: Type.String(), node: Type.String(), version: Type.String() }),
  EvaluationSchema,
]);
