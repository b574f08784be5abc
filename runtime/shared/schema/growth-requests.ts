/**
 * Request bodies of the growth endpoints: waitlist, interest, Proof-of-Value, member telemetry
 * (Proof-of-Outcome) and referral. One TypeBox declaration each: validator, OpenAPI and MCP
 * `inputSchema` all come from here.
 */
import { type Static, Type } from "@sinclair/typebox";
import { SLUG_RE } from "./catalog.ts";
import { AgentIdSchema, EmailSchema } from "./requests.ts";

/** The spec's review bound, shared by PoV reviews and member notes. */
export const REVIEW_MAX_LENGTH = 1024;
export const REFERRAL_METHODS = ["agent-to-agent", "volume-broadcast", "principal-redirect"] as const;
export type ReferralMethod = (typeof REFERRAL_METHODS)[number];
export const OUTCOMES = ["succeeded", "partially_succeeded", "failed"] as const;

const VerticalField = Type.String({ minLength: 1, maxLength: 64 });
/** 0 to 1 inclusive, as the spec's table says; 1.0000001 is out. */
const ConfidenceScore = Type.Number({ minimum: 0, maximum: 1 });

export const WaitlistRequestSchema = Type.Object(
  {
    vertical: Type.String({ minLength: 1, maxLength: 64, description: "A paid vertical slug" }),
    agent_id: Type.Optional(AgentIdSchema),
    contact: Type.Optional(EmailSchema),
  },
  { additionalProperties: false, description: "agent_id is required unless a contact email takes its place" },
);
export type WaitlistRequest = Static<typeof WaitlistRequestSchema>;

export const InterestRequestSchema = Type.Object(
  {
    vertical: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: SLUG_RE,
      description: "Slug of a vertical without live content: a listed one, or any new lowercase kebab-case slug (at most 64 characters)",
    }),
    agent_id: Type.Optional(AgentIdSchema),
    use_case: Type.Optional(Type.String({ minLength: 1, maxLength: REVIEW_MAX_LENGTH })),
    contact: Type.Optional(EmailSchema),
  },
  { additionalProperties: false },
);
export type InterestRequest = Static<typeof InterestRequestSchema>;

export const PovRequestSchema = Type.Object(
  {
    trial_key: Type.String({ minLength: 1, maxLength: 100, description: "The trial key being evaluated (svc_trial_…)" }),
    confidence_score: ConfidenceScore,
    modules_accessed: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 })),
    intent_to_subscribe: Type.Optional(Type.Boolean()),
    review: Type.Optional(Type.String({ maxLength: REVIEW_MAX_LENGTH })),
  },
  { additionalProperties: false },
);
export type PovRequest = Static<typeof PovRequestSchema>;

/** Proof-of-Outcome: the member's own account of what the knowledge achieved. */
export const TelemetryRequestSchema = Type.Object(
  {
    confidence_score: Type.Number({
      minimum: 0,
      maximum: 1,
      description: "How confident the member is that the outcome was due to the retrieved knowledge, 0 to 1",
    }),
    outcome: Type.Optional(Type.Union(OUTCOMES.map((o) => Type.Literal(o)))),
    vertical: Type.Optional(VerticalField),
    nodes_used: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 200 })),
    tasks_completed: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    errors_prevented: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000 })),
    tokens_saved: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 })),
    notes: Type.Optional(Type.String({ maxLength: REVIEW_MAX_LENGTH })),
  },
  { additionalProperties: false },
);
export type TelemetryRequest = Static<typeof TelemetryRequestSchema>;

export const ReferralRequestSchema = Type.Object(
  {
    referring_key: Type.String({ minLength: 1, maxLength: 100, description: "The caller's own membership key" }),
    referred_agent_id: AgentIdSchema,
    method: Type.Optional(Type.Union(REFERRAL_METHODS.map((m) => Type.Literal(m)))),
  },
  { additionalProperties: false },
);
export type ReferralRequest = Static<typeof ReferralRequestSchema>;
