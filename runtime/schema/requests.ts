/**
 * Request bodies and query parameters. Each is one TypeBox declaration: the runtime compiles it
 * into a validator at start-up, the OpenAPI description embeds it, MCP tools reuse it.
 */
import { Type, type Static } from "@sinclair/typebox";

/** Stable agent identifiers: printable, no control characters, bounded. */
export const AgentIdSchema = Type.String({ minLength: 1, maxLength: 200, pattern: "^[^\\u0000-\\u001f\\u007f]+$" });
/** A pragmatic email shape (RFC 5321 length bound); delivery, not validation, is the real check. */
export const EmailSchema = Type.String({ maxLength: 254, pattern: "^[^\\s@<>()\\[\\],;:\"]+@[^\\s@<>()\\[\\],;:\"]+\\.[A-Za-z]{2,}$" });
export const SlugParamSchema = Type.String({ minLength: 1, maxLength: 64 });

export const TrialRequestSchema = Type.Object(
  {
    agent_id: AgentIdSchema,
    vertical: Type.Optional(Type.String({ maxLength: 64, description: "ai-compliance (default, also `ethics`) or travel" })),
  },
  { additionalProperties: false },
);
export type TrialRequest = Static<typeof TrialRequestSchema>;

export const IssueKeysRequestSchema = Type.Object(
  {
    vertical: Type.String({ minLength: 1, maxLength: 64, description: "A vertical slug, or `all`" }),
    agent_id: Type.Optional(AgentIdSchema),
    contact: Type.Optional(EmailSchema),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1 })),
    permanent: Type.Optional(Type.Boolean({ default: false, description: "No monthly reset: usage counts over the key's lifetime" })),
  },
  { additionalProperties: false },
);
export type IssueKeysRequest = Static<typeof IssueKeysRequestSchema>;

/** `POST /api/evaluate` (and the MCP `evaluate_rules` tool): boolean facts for one node's rules. */
export const EvaluateRequestSchema = Type.Object(
  {
    vertical: Type.String({ minLength: 1, maxLength: 64, description: "A vertical slug (ai-compliance and ethics are the same vertical)" }),
    node: Type.String({ minLength: 1, maxLength: 200, description: "Id of the node whose compiled rules to evaluate" }),
    facts: Type.Record(Type.String(), Type.Boolean(), {
      maxProperties: 500,
      description: "Known facts by name, each true or false; leave a fact out when it is not known (never guess)",
    }),
  },
  { additionalProperties: false },
);
export type EvaluateRequest = Static<typeof EvaluateRequestSchema>;
