/**
 * Checkout shapes: the POST body, the GET description, the card redirect, the keys bought, and
 * the webhook acknowledgement. One TypeBox declaration each (validator, OpenAPI and TS type).
 */
import { type Static, Type } from "@sinclair/typebox";
import { AgentIdSchema, EmailSchema } from "../../shared/schema/requests.ts";
import { IssuedKeySchema } from "../../shared/schema/responses.ts";
import { methodsSucceedingWith, PAYMENT_METHOD_IDS, PAYMENT_METHOD_TRAITS, type PaymentMethodId } from "./methods/method-ids.ts";

export const PAYMENT_METHODS = PAYMENT_METHOD_IDS;
export type PaymentMethod = PaymentMethodId;

/** The ids of the methods whose successful checkout answers `success`, as a schema. */
const methodIdsSucceedingWith = <S extends Parameters<typeof methodsSucceedingWith>[0]>(success: S) =>
  Type.Union(methodsSucceedingWith(success).map((m) => Type.Literal(m)));

export const CheckoutRequestSchema = Type.Object(
  {
    vertical: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "The vertical the keys unlock (a paid vertical or ai-compliance; every membership also includes ai-compliance)",
    }),
    payment_method: Type.Union(PAYMENT_METHODS.map((m) => Type.Literal(m))),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1, description: "Number of keys, 1 to 5" })),
    agent_id: Type.Optional(AgentIdSchema),
    contact: Type.Optional(
      Type.String({
        maxLength: EmailSchema.maxLength,
        pattern: EmailSchema.pattern,
        description: `Email for key delivery; required for ${PAYMENT_METHOD_IDS.filter((m) => PAYMENT_METHOD_TRAITS[m].contactRequired).join(", ")}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type CheckoutRequest = Static<typeof CheckoutRequestSchema>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const MethodSchema = Type.Object({
  id: Type.Union(PAYMENT_METHODS.map((m) => Type.Literal(m))),
  available: Type.Boolean(),
  description: Type.String(),
  success_status: Type.Integer(),
  header: Type.Optional(Type.String()),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const CheckoutInfoSchema = Type.Object({
  object: Type.Literal("checkout_info"),
  active_cohort: Type.String(),
  payment_methods: Type.Array(MethodSchema),
  pricing: Type.Object({
    currency: Type.Literal("USD"),
    interval: Type.Literal("month"),
    cohorts: Type.Array(
      Type.Object({
        name: Type.String(),
        member_cap: Type.Integer(),
        price: Type.String(),
        price_usd_micros: Type.Integer(),
        graduated: Type.Optional(Type.Array(Type.Object({ key: Type.Integer(), price: Type.String(), price_usd_micros: Type.Integer() }))),
      }),
    ),
    max_keys_per_account: Type.Integer(),
    quantity: Type.Object({ min: Type.Integer(), max: Type.Integer(), default: Type.Integer() }),
    per_use: Type.Object({ header: Type.String(), price_usd_micros: Type.Integer(), price: Type.String(), index_free: Type.Boolean() }),
  }),
  loyalty_credit: Type.Object({
    description: Type.String(),
    credits: Type.Record(Type.String(), Type.Object({ credit: Type.String(), credit_usd_micros: Type.Integer() })),
  }),
  subscription_options: Type.Array(
    Type.Object({ id: Type.String(), description: Type.String(), quantity: Type.Integer(), monthly_retrievals: Type.Integer() }),
  ),
  notes: Type.Array(Type.String()),
});

const QuoteSchema = Type.Object({
  cohort: Type.String(),
  keys_held: Type.Integer(),
  quantity: Type.Integer(),
  per_key_usd_micros: Type.Array(Type.Integer()),
  amount_usd_micros: Type.Integer(),
  amount: Type.String(),
  credit_balance_usd_micros: Type.Integer({
    description: "Referral and loyalty credit owed to the account; applied at the next renewal, not to this purchase",
  }),
});

export const CheckoutQuoteSchema = Type.Object({
  object: Type.Literal("checkout_quote"),
  vertical: Type.String(),
  /** The account quoted for, when the request proved it; null for a new account. */
  account: Nullable(Type.String()),
  quote: QuoteSchema,
  payment_options: Type.Array(MethodSchema),
  detail: Type.String(),
});

export const CheckoutSessionSchema = Type.Object({
  object: Type.Literal("checkout_session"),
  payment_method: methodIdsSucceedingWith("checkout_session"),
  checkout_id: Type.String(),
  purchase_id: Type.String(),
  session_id: Type.String(),
  url: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  quote: QuoteSchema,
  delivery: Type.String(),
});

export const CheckoutKeysSchema = Type.Object({
  keys: Type.Array(IssuedKeySchema),
  receipt: Type.Object({
    payment_method: methodIdsSucceedingWith("keys"),
    purchase_id: Type.String(),
    /** The account the keys belong to (send one of them in X-Service-Key to buy more for it). */
    account: Nullable(Type.String()),
    quote: QuoteSchema,
    transaction: Type.Union([Type.String(), Type.Null()]),
    /** Present when the charge was noted as unconfirmed (x402: settled by an earlier attempt whose transaction is unknown). */
    charge_unconfirmed: Type.Optional(Type.Literal(true)),
  }),
});

export const CardSuccessSchema = Type.Union([
  Type.Object({ status: Type.Literal("unknown") }),
  Type.Object({ status: Type.Literal("awaiting_payment"), purchase_id: Type.String(), expires_at: Nullable(Type.String()) }),
  Type.Object({ status: Type.Literal("processing"), purchase_id: Type.String() }),
  Type.Object({
    status: Type.Literal("keys"),
    purchase_id: Type.String(),
    keys: Type.Array(IssuedKeySchema),
    mailed_to: Nullable(Type.String()),
  }),
  Type.Object({ status: Type.Literal("already_shown"), purchase_id: Type.String(), mailed_to: Nullable(Type.String()) }),
  Type.Object({ status: Type.Literal("not_completed"), purchase_id: Type.String(), state: Type.String() }),
]);

const ReconcileEntrySchema = Type.Object({
  id: Type.String(),
  method: Type.String(),
  state: Type.String(),
  account: Nullable(Type.String()),
  amount_usd_micros: Type.Integer(),
  created_at: Type.String(),
  action: Type.String(),
  unconfirmed: Nullable(Type.String()),
  payer: Type.Record(Type.String(), Type.String()),
});

export const PaymentsOverviewSchema = Type.Object({ open: Type.Array(ReconcileEntrySchema), attention: Type.Array(ReconcileEntrySchema) });
export const ReconcileReportSchema = Type.Object({
  resolved: Type.Array(ReconcileEntrySchema),
  open: Type.Array(ReconcileEntrySchema),
  attention: Type.Array(ReconcileEntrySchema),
});
export const AcknowledgedSchema = Type.Object({
  id: Type.String(),
  state: Type.String(),
  acknowledged_at: Type.Optional(Type.String()),
  operator_note: Type.Optional(Type.String()),
});

export const WebhookAckSchema = Type.Object({
  received: Type.Literal(true),
  outcome: Type.Union(
    [
      "fulfilled",
      "duplicate",
      "awaiting_payment",
      "payment_failed",
      "unknown_checkout",
      "account_cap_reached",
      "refund_due",
      "credit_applied",
      "no_credit",
      "ignored",
    ].map((o) => Type.Literal(o)),
  ),
});
export type WebhookOutcome = Static<typeof WebhookAckSchema>["outcome"];

export const AcknowledgePurchaseSchema = Type.Object(
  {
    id: Type.String({ pattern: "^pur_[0-9a-f]{32}$", description: "The purchase id" }),
    note: Type.String({
      minLength: 1,
      maxLength: 500,
      description: "What the operator did (e.g. refunded through the network's dashboard)",
    }),
    outcome: Type.Optional(
      Type.Union([Type.Literal("paid"), Type.Literal("not_paid")], {
        description:
          "Required for a purchase waiting `unconfirmed`, refused for any other: what the operator found at the provider. `paid` issues its keys (the buyer's retry with the same Idempotency-Key gets them), `not_paid` releases it and gives the token's held value back.",
      }),
    ),
  },
  { additionalProperties: false },
);
