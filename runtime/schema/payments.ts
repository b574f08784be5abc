/**
 * Checkout shapes: the POST body, the GET description, the card redirect, the keys bought, and
 * the webhook acknowledgement. One TypeBox declaration each (validator, OpenAPI and TS type).
 */
import { Type, type Static } from "@sinclair/typebox";
import { AgentIdSchema, EmailSchema } from "./requests.ts";
import { IssuedKeySchema } from "./responses.ts";

export const PAYMENT_METHODS = ["card", "agent_network", "http402"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const CheckoutRequestSchema = Type.Object(
  {
    vertical: Type.String({ minLength: 1, maxLength: 64, description: "The vertical the keys unlock (a paid vertical or ai-compliance; every membership also includes ai-compliance)" }),
    payment_method: Type.Union(PAYMENT_METHODS.map((m) => Type.Literal(m))),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1, description: "Number of keys, 1 to 5" })),
    agent_id: Type.Optional(AgentIdSchema),
    contact: Type.Optional(Type.String({ maxLength: EmailSchema.maxLength, pattern: EmailSchema.pattern, description: "Email for key delivery; required for card" })),
  },
  { additionalProperties: false },
);
export type CheckoutRequest = Static<typeof CheckoutRequestSchema>;

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
  loyalty_credit: Type.Object({ description: Type.String(), credits: Type.Record(Type.String(), Type.Object({ credit: Type.String(), credit_usd_micros: Type.Integer() })) }),
  subscription_options: Type.Array(Type.Object({ id: Type.String(), description: Type.String(), quantity: Type.Integer(), monthly_retrievals: Type.Integer() })),
  notes: Type.Array(Type.String()),
});

const QuoteSchema = Type.Object({
  cohort: Type.String(),
  keys_held: Type.Integer(),
  quantity: Type.Integer(),
  per_key_usd_micros: Type.Array(Type.Integer()),
  amount_usd_micros: Type.Integer(),
  amount: Type.String(),
  credit_balance_usd_micros: Type.Integer({ description: "Referral and loyalty credit owed to the account; applied at the next renewal, not to this purchase" }),
});

export const CheckoutSessionSchema = Type.Object({
  object: Type.Literal("checkout_session"),
  payment_method: Type.Literal("card"),
  checkout_id: Type.String(),
  session_id: Type.String(),
  url: Type.String(),
  expires_at: Type.Union([Type.String(), Type.Null()]),
  quote: QuoteSchema,
  delivery: Type.String(),
});

export const CheckoutKeysSchema = Type.Object({
  keys: Type.Array(IssuedKeySchema),
  receipt: Type.Object({
    payment_method: Type.Union([Type.Literal("agent_network"), Type.Literal("http402")]),
    quote: QuoteSchema,
    transaction: Type.Union([Type.String(), Type.Null()]),
  }),
});

export const WebhookAckSchema = Type.Object({
  received: Type.Literal(true),
  outcome: Type.Union(
    ["fulfilled", "duplicate", "awaiting_payment", "payment_failed", "unknown_checkout", "account_cap_reached", "ignored"].map((o) => Type.Literal(o)),
  ),
});
export type WebhookOutcome = Static<typeof WebhookAckSchema>["outcome"];
