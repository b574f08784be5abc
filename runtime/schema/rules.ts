/**
 * Binary logic gates (spec rule 3): the authored form, the compiled form the build emits, and the
 * shape of an evaluation. Declared once with TypeBox, so the JSON Schema that ajv checks and the
 * TypeScript type the code uses cannot drift apart.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";

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
  outcomes: Type.Array(Type.Object({ id: Type.String(), description: Type.String() })),
  rules: Type.Array(CompiledRuleSchema),
});
export type CompiledRuleSet = Static<typeof CompiledRuleSetSchema>;

/** Three-valued result of a gate: true, false, or null when a missing fact leaves it open. */
export type Truth = boolean | null;

const TraceSchema: TSchema = Type.Recursive((Self) =>
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
  missing_facts: Type.Array(Type.Object({ id: Type.String(), question: Type.String() })),
  outcomes: Type.Array(
    Type.Object({
      id: Type.String(),
      description: Type.String(),
      value: Type.Union([Type.Boolean(), Type.Null()]),
      rules: Type.Array(Type.String()),
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
