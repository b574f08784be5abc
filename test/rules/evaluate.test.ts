/** runtime/domain/rules/evaluate.ts: three-valued gates, chaining, missing facts, short-circuit semantics. */
import { describe, expect, it } from "vitest";
import { evaluateRules } from "../../runtime/domain/rules/evaluate.ts";
import type { CompiledGate, CompiledRuleSet } from "../../runtime/shared/schema/rules.ts";

const fact = (name: string): CompiledGate => ({ op: "fact", name });
const outcome = (name: string): CompiledGate => ({ op: "outcome", name });
const all = (...args: CompiledGate[]): CompiledGate => ({ op: "all", args });
const any = (...args: CompiledGate[]): CompiledGate => ({ op: "any", args });
const not = (arg: CompiledGate): CompiledGate => ({ op: "not", arg });

/** One outcome `o` concluded by one rule with the given gate, over facts a, b, c. */
function single(when: CompiledGate): CompiledRuleSet {
  return {
    facts: ["a", "b", "c"].map((id) => ({ id, question: `${id}?` })),
    outcomes: [{ id: "o", description: "O." }],
    rules: [{ id: "r", when, then: "o", citation: "Art. 1" }],
  };
}
const value = (when: CompiledGate, facts: Record<string, boolean>) => evaluateRules(single(when), facts).outcomes[0]!.value;

describe("evaluateRules", () => {
  it("and / or / not over known facts", () => {
    expect(value(all(fact("a"), fact("b")), { a: true, b: true })).toBe(true);
    expect(value(all(fact("a"), fact("b")), { a: true, b: false })).toBe(false);
    expect(value(any(fact("a"), fact("b")), { a: false, b: true })).toBe(true);
    expect(value(any(fact("a"), fact("b")), { a: false, b: false })).toBe(false);
    expect(value(not(fact("a")), { a: false })).toBe(true);
    expect(value(not(fact("a")), { a: true })).toBe(false);
  });

  it("short-circuits: all is false as soon as one part is false, any true as soon as one is true", () => {
    expect(value(all(fact("a"), fact("b")), { b: false })).toBe(false);
    expect(value(any(fact("a"), fact("b")), { b: true })).toBe(true);
    // Without a decisive part, a missing fact leaves the gate open.
    expect(value(all(fact("a"), fact("b")), { b: true })).toBeNull();
    expect(value(any(fact("a"), fact("b")), { b: false })).toBeNull();
    expect(value(not(fact("a")), {})).toBeNull();
  });

  it("names only the missing facts that decide, with their questions", () => {
    const result = evaluateRules(single(any(all(fact("a"), fact("b")), fact("c"))), { b: false });
    expect(result.undetermined).toEqual(["o"]);
    expect(result.missing_facts).toEqual([{ id: "c", question: "c?", decides: ["o"], settles: 1 }]);
    expect(result.ask_first).toBe("c");
    expect(result.rules[0]!.missing_facts).toEqual(["c"]);
    // A decided outcome asks for nothing, even when facts are missing.
    expect(evaluateRules(single(any(fact("a"), fact("c"))), { a: true }).missing_facts).toEqual([]);
  });

  it("chains outcomes: rules run in dependency order; several rules for one outcome are or-ed", () => {
    const set: CompiledRuleSet = {
      facts: [
        { id: "a", question: "a?" },
        { id: "b", question: "b?" },
        { id: "near", question: "near?" },
      ],
      outcomes: [
        { id: "due", description: "Due." },
        { id: "band", description: "Band." },
      ],
      rules: [
        { id: "due-a", when: fact("a"), then: "due", citation: "c1" },
        { id: "due-b", when: fact("b"), then: "due", citation: "c2" },
        { id: "band", when: all(outcome("due"), fact("near")), then: "band", citation: "c3" },
      ],
    };
    expect(evaluateRules(set, { a: false, b: true, near: true })).toMatchObject({
      holds: ["due", "band"],
      does_not_hold: [],
      undetermined: [],
    });
    expect(evaluateRules(set, { a: false, b: false, near: true })).toMatchObject({ holds: [], does_not_hold: ["due", "band"] });
    // An undetermined outcome makes what depends on it undetermined, unless another part decides.
    const open = evaluateRules(set, { a: false, near: true });
    expect(open.undetermined).toEqual(["due", "band"]);
    expect(open.missing_facts.map((f) => f.id)).toEqual(["b"]);
    expect(evaluateRules(set, { a: false, near: false }).does_not_hold).toEqual(["band"]);
    expect(evaluateRules(set, { a: true }).outcomes.find((o) => o.id === "due")).toMatchObject({ value: true, rules: ["due-a", "due-b"] });
  });

  it("never asks a fact inside a branch that cannot change the outcome", () => {
    // o = a and (b or c): with a false, neither b nor c can matter; with b true, c cannot.
    expect(evaluateRules(single(all(fact("a"), any(fact("b"), fact("c")))), { a: false }).missing_facts).toEqual([]);
    expect(evaluateRules(single(all(fact("a"), any(fact("b"), fact("c")))), { b: true }).missing_facts.map((f) => f.id)).toEqual(["a"]);
    // (a and b) or (a and not b) is just a: b is never worth asking, and a alone decides.
    const split = single(any(all(fact("a"), fact("b")), all(fact("a"), not(fact("b")))));
    expect(evaluateRules(split, {}).missing_facts.map((f) => f.id)).toEqual(["a"]);
    expect(evaluateRules(split, { a: true })).toMatchObject({ holds: ["o"], undetermined: [], missing_facts: [], ask_first: null });
  });

  it("orders questions so the first settles the most undetermined outcomes, and names it ask_first", () => {
    const set: CompiledRuleSet = {
      facts: ["x", "gate"].map((id) => ({ id, question: `${id}?` })),
      outcomes: ["p", "q", "r"].map((id) => ({ id, description: `${id}.` })),
      rules: [
        { id: "p", when: all(fact("gate"), fact("x")), then: "p", citation: "c" },
        { id: "q", when: fact("gate"), then: "q", citation: "c" },
        { id: "r", when: all(fact("gate"), not(fact("x"))), then: "r", citation: "c" },
      ],
    };
    const result = evaluateRules(set, {});
    // `gate` false settles p, q and r at once; `x` settles only one of p, r.
    expect(result.ask_first).toBe("gate");
    expect(result.missing_facts.map((f) => [f.id, f.settles, f.decides])).toEqual([
      ["gate", 3, ["p", "q", "r"]],
      ["x", 1, ["p", "r"]],
    ]);
  });

  it("an outcome without rules does not hold; confidence_required is always 1", () => {
    const result = evaluateRules({ facts: [], outcomes: [{ id: "x", description: "X." }], rules: [] }, {});
    expect(result).toMatchObject({ confidence_required: 1, does_not_hold: ["x"] });
  });

  it("traces every gate with its value and reason", () => {
    const trace = evaluateRules(single(all(fact("a"), not(fact("b")))), { a: true, b: false }).rules[0]!.trace;
    expect(trace).toMatchObject({
      op: "all",
      value: true,
      reason: "every part is true",
      args: [
        { op: "fact", name: "a", value: true },
        { op: "not", value: true },
      ],
    });
  });

  it("one rule set evaluated over and over (rankings are reused by state) answers each set of facts as if it were the first", () => {
    // The route builds a new rule set object per request around the same compiled rules.
    const rules = single(all(fact("a"), any(fact("b"), fact("c")))).rules;
    const ruleSet = () => ({ ...single(fact("a")), rules });
    const states: Array<[Record<string, boolean>, string[]]> = [
      [{}, ["a", "b", "c"]],
      [{ a: true }, ["b", "c"]],
      [{ a: true, b: false }, ["c"]],
      [{ b: true }, ["a"]],
      [{ a: false }, []],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [facts, open] of states)
        expect(
          evaluateRules(ruleSet(), facts)
            .missing_facts.map((f) => f.id)
            .sort(),
        ).toEqual(open);
    }
  });
});
