/**
 * The authored frontmatter of a node and of a vertical's `_index.md` (content/AUTHORING.md).
 * Reuses the rule schemas of the shared contract, so an authored gate is checked by the same
 * declaration the runtime's compiled form derives from.
 */
import { type Static, Type } from "@sinclair/typebox";
import { NodeStatusSchema } from "../../runtime/shared/schema/artifacts.ts";
import { SLUG_RE } from "../../runtime/shared/schema/catalog.ts";
import { AuthoredRuleSchema, FACT_NAME_RE, OutcomeValueSchema } from "../../runtime/shared/schema/rules.ts";

/** `YYYY-MM-DD`, or a date-time with seconds optional and an explicit zone (never local time). */
export const AUTHORED_DATE_RE = "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2}))?$";

const NodeId = Type.String({ pattern: SLUG_RE });
/**
 * A date as authored. Its format and calendar are checked by the validate stage (`date_invalid`,
 * with the format in the message) rather than by this schema: a schema error rejects the whole
 * node, and a mistyped date must not hide the node's other problems (its rules) until it is fixed.
 */
const AuthoredDate = Type.String({ minLength: 1 });
const Question = Type.String({ minLength: 1 });
const ExclusionSchema = Type.Object(
  {
    outcomes: Type.Array(Type.String({ pattern: FACT_NAME_RE }), { minItems: 2, uniqueItems: true }),
    /** Why they exclude each other: the article, paragraph or judgment. */
    basis: Type.String({ minLength: 3 }),
  },
  { additionalProperties: false },
);
const AuthoredQuestion = Type.String({
  minLength: 10,
  maxLength: 200,
  pattern: "^[^\\n]*\\?$",
  // Shown when the pattern fails (build/schema/validator.ts).
  description: 'a question on one line, ending with a question mark (e.g. "Can I get my money back if my flight is cancelled?")',
});

export const AuthoredSourceSchema = Type.Object(
  {
    id: Type.String({ pattern: SLUG_RE }),
    title: Type.String({ minLength: 3 }),
    url: Type.Optional(Type.String({ pattern: "^https?://\\S+$" })),
  },
  { additionalProperties: false },
);

export const NodeFrontmatterSchema = Type.Object(
  {
    id: NodeId,
    title: Type.String({ minLength: 1, maxLength: 200 }),
    summary: Type.String({ minLength: 20, maxLength: 600 }),
    /** Questions the node answers, as people ask them: a strong field of search (runtime/domain/search/). */
    questions: Type.Optional(Type.Array(AuthoredQuestion, { minItems: 1, maxItems: 12, uniqueItems: true })),
    order: Type.Integer({ minimum: 1 }),
    next_nodes: Type.Array(NodeId, { uniqueItems: true }),
    created: AuthoredDate,
    updated: AuthoredDate,
    status: NodeStatusSchema,
    /** Date the node was last checked against its sources; `review_by`: when it must be checked again. */
    reviewed: Type.Optional(AuthoredDate),
    review_by: Type.Optional(AuthoredDate),
    /**
     * The author's statement that every change since `reviewed`, up to this `updated`, is editorial
     * (wording, questions, formatting): it names the `updated` it covers, so the next change that
     * moves `updated` needs a review again (build/stages/review-dates.ts, `review_behind_change`).
     */
    editorial: Type.Optional(AuthoredDate),
    deprecated_at: Type.Optional(AuthoredDate),
    replaced_by: Type.Optional(NodeId),
    sources: Type.Array(AuthoredSourceSchema, { minItems: 1 }),
    facts: Type.Optional(Type.Record(Type.String({ pattern: FACT_NAME_RE }), Question)),
    outcomes: Type.Optional(Type.Record(Type.String({ pattern: FACT_NAME_RE }), Question)),
    rules: Type.Optional(Type.Array(AuthoredRuleSchema)),
    /**
     * Outcomes the law says cannot hold together (an exception and what it excepts, an exemption
     * and the liability it exempts from, alternative bands): at most one of each group holds for
     * any assignment of the facts, which the build proves over the compiled diagrams.
     */
    exclusions: Type.Optional(Type.Array(ExclusionSchema)),
    /**
     * Outcomes that only feed other rules: reported, but their facts are asked only while they can
     * still change an outcome that is not intermediate (runtime/shared/decision-diagram.ts).
     */
    intermediate: Type.Optional(Type.Array(Type.String({ pattern: FACT_NAME_RE }), { uniqueItems: true })),
    /**
     * Facts that are dates: each fact is true exactly when the assessed date is on or after its
     * date (YYYY-MM-DD). A caller gives one date (`as_of`) and every one is derived from it, and
     * answering one settles the earlier or later ones (runtime/domain/rules/date-facts.ts).
     */
    date_facts: Type.Optional(Type.Record(Type.String({ pattern: FACT_NAME_RE }), AuthoredDate)),
    /**
     * Phrases that state a figure on purpose without a typed value (a figure quoted to warn against
     * it, the date of a cited act): the typed-value lint (build/stages/untyped-values.ts) skips them.
     */
    prose_values: Type.Optional(Type.Array(Type.String({ minLength: 2 }), { uniqueItems: true })),
    /** Work in progress: built in dev, left out of a release build (build/stages/drafts.ts). */
    draft: Type.Optional(Type.Boolean()),
    /** Typed values per outcome (amount, cap, percent, duration, date, url, path), returned when it holds. */
    values: Type.Optional(Type.Record(Type.String({ pattern: FACT_NAME_RE }), Type.Array(OutcomeValueSchema, { minItems: 1 }))),
  },
  { additionalProperties: false },
);
export type NodeFrontmatter = Static<typeof NodeFrontmatterSchema>;

/** `content/<vertical>/_index.md`: frontmatter only. */
export const VerticalIndexSchema = Type.Object(
  {
    title: Type.String({ minLength: 1 }),
    summary: Type.String({ minLength: 20, maxLength: 1200 }),
    root: NodeId,
  },
  { additionalProperties: false },
);
export type VerticalIndex = Static<typeof VerticalIndexSchema>;
