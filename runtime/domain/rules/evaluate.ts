/**
 * Deterministic evaluation of a node's compiled rules over boolean facts.
 *
 * Each rule's gate is traced in three-valued (Kleene) logic: a missing fact is `null`, `all` is
 * false as soon as one part is false, `any` is true as soon as one part is true. An outcome holds
 * when it is true for every value the missing facts could take, does not hold when it is false
 * for every value, and is undetermined otherwise (decision diagrams decide this exactly, so an
 * outcome the given facts already settle is never reported open). Only facts that can still
 * change an undetermined outcome are listed as missing, the most decisive first; an outcome the
 * node declares intermediate (a step that only feeds other rules) is reported but never asked
 * about for its own sake, so questions follow the case.
 * No probabilities, no partial credit.
 */

import { type DecisionDiagrams, diagramsFor, FALSE, type Ref, TRUE } from "../../shared/decision-diagram.ts";
import type { CompiledGate, CompiledRuleSet, Evaluation, GateTrace, Truth } from "../../shared/schema/rules.ts";

export type FactValues = Readonly<Record<string, boolean>>;

/**
 * @example evaluateRules(ruleSet, { arrival_delay_at_least_3h: true })
 */
export function evaluateRules(ruleSet: CompiledRuleSet, facts: FactValues): Evaluation {
  const diagrams = diagramsFor(ruleSet);
  const given = new Map<number, boolean>();
  diagrams.variables.forEach((id, i) => {
    if (Object.hasOwn(facts, id)) given.set(i, facts[id]!);
  });
  const memo = new Map<Ref, Ref>();
  const restricted = new Map<string, Ref>();
  const outcomeValues = new Map<string, Truth>();
  for (const [id, ref] of diagrams.outcomes) {
    const r = diagrams.restrict(ref, given, memo);
    restricted.set(id, r);
    outcomeValues.set(id, r === TRUE ? true : r === FALSE ? false : null);
  }
  const questions = _rankQuestions(diagrams, restricted, ruleSet);
  const relevant = new Set(questions.map((q) => q.id));
  const ruleResults: Evaluation["rules"] = [];

  for (const rule of ruleSet.rules) {
    const trace = _evaluateGate(rule.when, facts, outcomeValues);
    ruleResults.push({
      id: rule.id,
      then: rule.then,
      value: trace.value,
      citation: rule.citation,
      ...(rule.source ? { source: rule.source } : {}),
      missing_facts: trace.value === null ? [..._collectDeciding(trace, new Set())].filter((f) => relevant.has(f)).sort() : [],
      trace,
    });
  }

  const holds: string[] = [];
  const doesNotHold: string[] = [];
  const undetermined: string[] = [];
  const outcomes: Evaluation["outcomes"] = [];
  for (const outcome of ruleSet.outcomes) {
    // `??` would turn an undetermined (null) outcome into false: only a missing entry means false.
    const value = outcomeValues.has(outcome.id) ? outcomeValues.get(outcome.id)! : false;
    (value === true ? holds : value === false ? doesNotHold : undetermined).push(outcome.id);
    outcomes.push({
      id: outcome.id,
      description: outcome.description,
      value,
      rules: ruleSet.rules.filter((r) => r.then === outcome.id).map((r) => r.id),
      ...(value === true && outcome.values ? { values: outcome.values } : {}),
    });
  }

  return {
    confidence_required: 1,
    holds,
    does_not_hold: doesNotHold,
    undetermined,
    ask_first: questions[0]?.id ?? null,
    missing_facts: questions,
    outcomes,
    rules: ruleResults,
  };
}

// --- Internal helpers ---

/** The missing facts under the undetermined branches only: those are the ones that decide. */
function _collectDeciding(trace: GateTrace, into: Set<string>): Set<string> {
  if (trace.value !== null) return into;
  if (trace.op === "fact" && trace.name) into.add(trace.name);
  for (const arg of trace.args ?? []) _collectDeciding(arg, into);
  return into;
}

/**
 * The facts some undetermined outcome still depends on, most decisive first (see
 * `DecisionDiagrams.rankOpenFacts`), as questions.
 */
function _rankQuestions(
  diagrams: DecisionDiagrams,
  restricted: ReadonlyMap<string, Ref>,
  ruleSet: CompiledRuleSet,
): Evaluation["missing_facts"] {
  return diagrams.rankOpenFacts(restricted).map(({ v, outcomes, settles }) => ({
    id: ruleSet.facts[v]!.id,
    question: ruleSet.facts[v]!.question,
    decides: [...outcomes], // a copy: the ranking is shared by every evaluation in the same state
    settles,
  }));
}

function _evaluateGate(gate: CompiledGate, facts: FactValues, outcomes: ReadonlyMap<string, Truth>): GateTrace {
  switch (gate.op) {
    case "fact": {
      const value = Object.hasOwn(facts, gate.name) ? facts[gate.name]! : null;
      return { op: "fact", name: gate.name, value, reason: value === null ? "fact not given" : `fact is ${value}` };
    }
    case "outcome": {
      const value = outcomes.has(gate.name) ? outcomes.get(gate.name)! : false;
      return { op: "outcome", name: gate.name, value, reason: value === null ? "outcome undetermined" : `outcome is ${value}` };
    }
    case "not": {
      const inner = _evaluateGate(gate.arg, facts, outcomes);
      const value = inner.value === null ? null : !inner.value;
      return { op: "not", value, reason: value === null ? "operand undetermined" : `negates ${inner.value}`, args: [inner] };
    }
    case "all":
    case "any": {
      const args = gate.args.map((a) => _evaluateGate(a, facts, outcomes));
      const decisive = gate.op !== "all";
      let value: Truth;
      let reason: string;
      if (args.some((a) => a.value === decisive)) {
        value = decisive;
        reason = gate.op === "all" ? "a part is false" : "a part is true";
      } else if (args.some((a) => a.value === null)) {
        value = null;
        reason = "a part is undetermined";
      } else {
        value = !decisive;
        reason = gate.op === "all" ? "every part is true" : "every part is false";
      }
      return { op: gate.op, value, reason, args };
    }
  }
}
