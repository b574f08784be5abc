/**
 * Binary logic gates (spec rule 3): the authored form, the compiled form the build emits, and the
 * shape of an evaluation. Declared once with TypeBox, so the JSON Schema that ajv checks and the
 * TypeScript type the code uses cannot drift apart.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";

export const FACT_NAME_RE = "^[a-z][a-z0-9_]*$";
export const RULE_ID_RE = "^[a-z0-9]+([-_][a-z0-9]+)*$";

/** Authored gate: a fact or outcome name, or `{ all }`, `{ any }`, `{ not }`. */
export const AuthoredGateSchema = Type.Recursive(
  (Self) =>
    Type.Union([
      Type.String({ pattern: FACT_NAME_RE }),
      Type.Object({ all: Type.Array(Self, { minItems: 1 }) }, { additionalProperties: false }),
      Type.Object({ any: Type.Array(Self, { minItems: 1 }) }, { additionalProperties: false }),
      Type.Object({ not: Self }, { additionalProperties: false }),
    ]),
  { $id: "AuthoredGate" },
);
export type AuthoredGate = Static<typeof AuthoredGateSchema>;

export const AuthoredRuleSchema = Type.Object(
  {
    id: Type.String({ pattern: RULE_ID_RE }),
    when: AuthoredGateSchema,
    then: Type.String({ pattern: FACT_NAME_RE }),
    citation: Type.String({ minLength: 3 }),
    source: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type AuthoredRule = Static<typeof AuthoredRuleSchema>;

/**
 * A typed value an outcome carries, so an agent uses the figure without parsing prose: an amount
 * with its currency, a cap in a unit (currency or SDR), a percentage of a named base, a duration,
 * a calendar date, a URL or a path. `note` says what the value is measured from or applies to.
 */
const Note = Type.Optional(Type.String({ minLength: 1, maxLength: 200 }));
/** The vertical figure (content/<vertical>/_figures.yaml) this value states; the build checks they agree. */
const FigureRef = Type.Optional(Type.String({ pattern: "^[a-z][a-z0-9_]*$" }));
export const DURATION_UNITS = ["minutes", "hours", "days", "business_days", "weeks", "months", "years"] as const;
export const OutcomeValueSchema = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal("amount"),
        amount: Type.Number({ minimum: 0 }),
        currency: Type.String({ pattern: "^[A-Z]{3}$" }),
        note: Note,
        figure: FigureRef,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal("cap"),
        amount: Type.Number({ minimum: 0 }),
        unit: Type.String({ pattern: "^([A-Z]{3}|SDR)(/[a-z]+)?$" }),
        note: Note,
        figure: FigureRef,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal("percent"),
        percent: Type.Number({ minimum: 0 }),
        of: Type.String({ minLength: 1, maxLength: 120 }),
        note: Note,
        figure: FigureRef,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: Type.Literal("duration"),
        amount: Type.Number({ exclusiveMinimum: 0 }),
        unit: Type.Union(DURATION_UNITS.map((u) => Type.Literal(u))),
        note: Note,
        figure: FigureRef,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal("date"), date: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }), note: Note, figure: FigureRef },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal("url"), url: Type.String({ pattern: "^https?://\\S+$" }), note: Note, figure: FigureRef },
      { additionalProperties: false },
    ),
    Type.Object(
      { type: Type.Literal("path"), path: Type.String({ pattern: "^/\\S*$" }), note: Note, figure: FigureRef },
      { additionalProperties: false },
    ),
  ],
  { $id: "OutcomeValue" },
);
export type OutcomeValue = Static<typeof OutcomeValueSchema>;

/** Compiled gate: explicit operators, so the evaluator never has to guess what a string names. */
export const CompiledGateSchema = Type.Recursive(
  (Self) =>
    Type.Union([
      Type.Object({ op: Type.Literal("fact"), name: Type.String() }),
      Type.Object({ op: Type.Literal("outcome"), name: Type.String() }),
      Type.Object({ op: Type.Literal("all"), args: Type.Array(Self) }),
      Type.Object({ op: Type.Literal("any"), args: Type.Array(Self) }),
      Type.Object({ op: Type.Literal("not"), arg: Self }),
    ]),
  { $id: "CompiledGate" },
);
export type CompiledGate = Static<typeof CompiledGateSchema>;

export const CompiledRuleSchema = Type.Object({
  id: Type.String(),
  when: CompiledGateSchema,
  then: Type.String(),
  citation: Type.String(),
  source: Type.Optional(Type.Object({ id: Type.String(), title: Type.String(), url: Type.Optional(Type.String()) })),
});
export type CompiledRule = Static<typeof CompiledRuleSchema>;

/** Everything needed to evaluate one node's logic layer; rules are in dependency order. */
export const CompiledRuleSetSchema = Type.Object({
  facts: Type.Array(Type.Object({ id: Type.String(), question: Type.String() })),
  outcomes: Type.Array(
    Type.Object({ id: Type.String(), description: Type.String(), values: Type.Optional(Type.Array(OutcomeValueSchema)) }),
  ),
  rules: Type.Array(CompiledRuleSchema),
  /**
   * Outcomes that only feed other rules (a step such as "the change is significant"): evaluated and
   * reported like any outcome, but a fact is never asked for their sake alone, only while it can
   * still change an outcome that is not in this list.
   */
  intermediate: Type.Optional(Type.Array(Type.String())),
  /**
   * Facts that are dates, earliest first: each is true exactly when the assessed date is on or
   * after `on_or_after`. Derived from one `as_of` date, and from each other (runtime/domain/rules/date-facts.ts).
   */
  date_facts: Type.Optional(Type.Array(Type.Object({ fact: Type.String(), on_or_after: Type.String() }))),
});
export type CompiledRuleSet = Static<typeof CompiledRuleSetSchema>;

/** Three-valued result of a gate: true, false, or null when a missing fact leaves it open. */
export type Truth = boolean | null;

const TraceSchema: TSchema = Type.Recursive(
  (Self) =>
    Type.Object({
      op: Type.Union([Type.Literal("fact"), Type.Literal("outcome"), Type.Literal("all"), Type.Literal("any"), Type.Literal("not")]),
      name: Type.Optional(Type.String()),
      value: Type.Union([Type.Boolean(), Type.Null()]),
      reason: Type.String(),
      args: Type.Optional(Type.Array(Self)),
    }),
  { $id: "GateTrace" },
);
export const GateTraceSchema = TraceSchema;
export interface GateTrace {
  op: CompiledGate["op"];
  name?: string;
  value: Truth;
  reason: string;
  args?: GateTrace[];
}

export const EvaluationSchema = Type.Object({
  confidence_required: Type.Literal(1),
  holds: Type.Array(Type.String()),
  does_not_hold: Type.Array(Type.String()),
  undetermined: Type.Array(Type.String()),
  /** The first of `missing_facts`: the question that settles the most undetermined outcomes; null when none is open. */
  ask_first: Type.Union([Type.String(), Type.Null()]),
  /**
   * Only facts that can still change an undetermined outcome that is not intermediate, most
   * decisive first. `decides`: those outcomes this fact can change; `settles`: how many of them one
   * answer settles.
   */
  missing_facts: Type.Array(
    Type.Object({
      id: Type.String(),
      question: Type.String(),
      decides: Type.Array(Type.String()),
      settles: Type.Integer({ minimum: 0 }),
    }),
  ),
  outcomes: Type.Array(
    Type.Object({
      id: Type.String(),
      description: Type.String(),
      value: Type.Union([Type.Boolean(), Type.Null()]),
      rules: Type.Array(Type.String()),
      /** The outcome's typed values, present only when it holds. */
      values: Type.Optional(Type.Array(OutcomeValueSchema)),
    }),
  ),
  /** The date given (`as_of`), when one was. */
  as_of: Type.Optional(
    Type.String({ description: "The assessed date the caller gave (YYYY-MM-DD), from which the node's date facts were derived" }),
  ),
  /**
   * The date facts the evaluation derived rather than received: from `as_of`, or from a date fact
   * given (a date on or after 2 August 2026 is on or after 2 August 2025). Present on nodes that
   * declare date facts.
   */
  derived_facts: Type.Optional(
    Type.Record(Type.String(), Type.Boolean(), {
      description: "Date facts derived from as_of or from the date facts given, by name; the answer used them as if given",
    }),
  ),
  rules: Type.Array(
    Type.Object({
      id: Type.String(),
      then: Type.String(),
      value: Type.Union([Type.Boolean(), Type.Null()]),
      citation: Type.String(),
      source: Type.Optional(Type.Object({ id: Type.String(), title: Type.String(), url: Type.Optional(Type.String()) })),
      missing_facts: Type.Array(Type.String()),
      trace: GateTraceSchema,
    }),
  ),
});
export type Evaluation = Omit<Static<typeof EvaluationSchema>, "rules"> & {
  rules: Array<Omit<Static<typeof EvaluationSchema>["rules"][number], "trace"> & { trace: GateTrace }>;
};
