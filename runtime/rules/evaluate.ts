/**
 * Deterministic evaluation of a node's compiled rules over boolean facts.
 *
 * Three-valued (Kleene) logic: a missing fact is `null`, `all` is false as soon as one part is
 * false, `any` is true as soon as one part is true. An outcome holds when any of its rules is
 * true, does not hold when all of them are false, and is undetermined otherwise; then the
 * missing facts that would decide it are listed. No probabilities, no partial credit.
 */
import type { CompiledGate, CompiledRuleSet, Evaluation, GateTrace, Truth } from "../schema/rules.ts";

export type FactValues = Readonly<Record<string, boolean>>;

/**
 * @example evaluateRules(ruleSet, { arrival_delay_at_least_3h: true })
 */
export function evaluateRules(ruleSet: CompiledRuleSet, facts: FactValues): Evaluation {
  const outcomeValues = new Map<string, Truth>();
  const outcomeRules = new Map<string, Truth[]>();
  const ruleResults: Evaluation["rules"] = [];

  // Rules arrive in dependency order from the build, so chained outcomes are final when read.
  for (const rule of ruleSet.rules) {
    const trace = _evaluateGate(rule.when, facts, outcomeValues);
    const values = outcomeRules.get(rule.then) ?? [];
    values.push(trace.value);
    outcomeRules.set(rule.then, values);
    outcomeValues.set(rule.then, _combineOutcome(values));
    ruleResults.push({
      id: rule.id,
      then: rule.then,
      value: trace.value,
      citation: rule.citation,
      ...(rule.source ? { source: rule.source } : {}),
      missing_facts: trace.value === null ? [..._collectDeciding(trace, new Set())].sort() : [],
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
    });
  }

  // Only facts that leave some outcome open are worth asking for.
  const missingIds = new Set(ruleResults.filter((r) => r.value === null).flatMap((r) => r.missing_facts));
  const missingFacts = ruleSet.facts.filter((f) => missingIds.has(f.id));

  return {
    confidence_required: 1,
    holds,
    does_not_hold: doesNotHold,
    undetermined,
    missing_facts: missingFacts,
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

function _combineOutcome(values: Truth[]): Truth {
  if (values.includes(true)) return true;
  if (values.every((v) => v === false)) return false;
  return null;
}

function _evaluateGate(
  gate: CompiledGate,
  facts: FactValues,
  outcomes: ReadonlyMap<string, Truth>,
): GateTrace {
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
      const decisive = gate.op === "all" ? false : true;
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
