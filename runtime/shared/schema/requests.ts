/**
 * Request bodies and query parameters. Each is one TypeBox declaration: the runtime compiles it
 * into a validator at start-up, the OpenAPI description embeds it, MCP tools reuse it.
 */
import { type Static, Type } from "@sinclair/typebox";

/** Stable agent identifiers: printable, no control characters, bounded. */
export const AgentIdSchema = Type.String({ minLength: 1, maxLength: 200, pattern: "^[^\\u0000-\\u001f\\u007f]+$" });
/** A pragmatic email shape (RFC 5321 length bound); delivery, not validation, is the real check. */
export const EmailSchema = Type.String({ maxLength: 254, pattern: '^[^\\s@<>()\\[\\],;:"]+@[^\\s@<>()\\[\\],;:"]+\\.[A-Za-z]{2,}$' });

export const TrialRequestSchema = Type.Object(
  {
    agent_id: AgentIdSchema,
    vertical: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          "A live vertical with a trial (default ai-compliance, also `ethics`); the catalogue decides which, see the operation's description",
      }),
    ),
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
    as_of: Type.Optional(
      Type.String({
        pattern: "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2}))?$",
        maxLength: 40,
        description:
          "The date the case is assessed on (ISO 8601: YYYY-MM-DD, or a date-time whose calendar date as written is used). Every date fact of the node (its logic layer's date_facts) is derived from it and echoed in derived_facts; a fact given that contradicts it is refused.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type EvaluateRequest = Static<typeof EvaluateRequestSchema>;

/** Query of `GET /api/search` (and the MCP `search` tool). */
export const SearchRequestSchema = Type.Object(
  {
    q: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Words to search for in titles, summaries and the layers the caller has unlocked",
    }),
    vertical: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "Limit the search to one vertical; omit for every vertical the caller can see",
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10, description: "Most results to return" })),
  },
  { additionalProperties: false },
);
export type SearchRequest = Static<typeof SearchRequestSchema>;

/** The MCP `get_index` tool: the query of `GET /api/demo` without a node. */
export const GetIndexRequestSchema = Type.Object(
  {
    vertical: Type.String({ minLength: 1, maxLength: 64, description: "A vertical slug (ai-compliance and ethics are the same vertical)" }),
    lean: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "true (the default): the index only; false adds the wrapper fields REST sends (the same text as the vkr://about resource)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type GetIndexRequest = Static<typeof GetIndexRequestSchema>;

/** The MCP `get_node` tool: the query of `GET /api/demo` with a node. */
export const GetNodeRequestSchema = Type.Object(
  {
    vertical: Type.String({ minLength: 1, maxLength: 64, description: "A vertical slug (ai-compliance and ethics are the same vertical)" }),
    node: Type.String({ minLength: 1, maxLength: 200, description: "Node id, as listed by get_index or search" }),
    lean: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "true (the default): only node and next_nodes; false adds the wrapper fields REST sends (the same text as the vkr://about resource)",
      }),
    ),
    layers: Type.Optional(
      Type.Array(Type.Union([Type.Literal("logic"), Type.Literal("directive"), Type.Literal("skill"), Type.Literal("action")]), {
        minItems: 1,
        maxItems: 4,
        uniqueItems: true,
        description: "Return only these layers (layer_tokens in the index tells their size)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type GetNodeRequest = Static<typeof GetNodeRequestSchema>;

/** The MCP `get_changes` tool: the query of `GET /v1/delta`. */
export const DeltaRequestSchema = Type.Object(
  {
    since: Type.Optional(Type.String({ maxLength: 64, description: "ISO 8601 date-time; only changes strictly after it" })),
    vertical: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "Scope to one vertical; omit for every vertical the key reads" }),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: "next_cursor of the previous page" })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: "Changes per page, 1 to 1000" })),
  },
  { additionalProperties: false },
);
export type DeltaRequest = Static<typeof DeltaRequestSchema>;

/** The MCP `verify_key` tool: checks the presented key, or one passed explicitly. */
export const VerifyKeyRequestSchema = Type.Object(
  {
    key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "A key to check; omit to check the key this session presents" }),
    ),
  },
  { additionalProperties: false },
);
export type VerifyKeyRequest = Static<typeof VerifyKeyRequestSchema>;

/** The MCP `list_verticals` tool takes no arguments. */
export const ListVerticalsRequestSchema = Type.Object({}, { additionalProperties: false });
