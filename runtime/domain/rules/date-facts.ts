/**
 * Date facts: a node may declare facts that are dates ("the conduct is on or after 2 August 2026",
 * `date_facts` of its logic layer). They are not independent booleans: one date decides them all,
 * and each answer settles the earlier or later ones. So a caller may give one date (`as_of`) from
 * which every date fact is derived; a date fact given settles the others it implies; and the
 * questions left open ask for that one date instead of one threshold after another. Shared by
 * `POST /api/evaluate`, MCP `evaluate_rules` and the scenario tests.
 */
import type { CompiledRuleSet, Evaluation } from "../../shared/schema/rules.ts";
import { evaluateRules } from "./evaluate.ts";

/** The one question that stands for every open date fact in `missing_facts`. */
export const AS_OF_QUESTION_ID = "as_of";

export type DatedEvaluation = Evaluation & { as_of?: string; derived_facts?: Record<string, boolean> };

/** A fact given that contradicts `as_of` or another date fact given. */
export class DateFactConflict extends Error {
  constructor(
    readonly fact: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Evaluates with the node's date facts derived: from `asOf` (`YYYY-MM-DD`) when given, else from
 * the date facts given. Throws DateFactConflict when a given fact contradicts them.
 * @example evaluateWithDates(timeline, { annex_iii_high_risk: true }, "2026-09-01").derived_facts
 */
export function evaluateWithDates(ruleSet: CompiledRuleSet, facts: Readonly<Record<string, boolean>>, asOf?: string): DatedEvaluation {
  const dated = ruleSet.date_facts ?? [];
  if (dated.length === 0) return { ...evaluateRules(ruleSet, facts), ...(asOf ? { as_of: asOf, derived_facts: {} } : {}) };
  const derived = _derive(dated, facts, asOf);
  const evaluation = evaluateRules(ruleSet, { ...facts, ...derived });
  return { ..._foldDateQuestions(evaluation, dated), ...(asOf ? { as_of: asOf } : {}), derived_facts: derived };
}

// --- Internal helpers ---

type DateFact = NonNullable<CompiledRuleSet["date_facts"]>[number];

/**
 * The date facts not given, as implied. The thresholds are ordered in time, so the facts are
 * monotone: true up to the last threshold the assessed date reaches, false after it.
 */
function _derive(dated: readonly DateFact[], facts: Readonly<Record<string, boolean>>, asOf?: string): Record<string, boolean> {
  // The assessed date lies in [after, before): after the last threshold known reached, before the first known not.
  let reached = "";
  let notReached = "\uffff";
  let reachedBy = asOf ? "as_of" : "";
  let notReachedBy = asOf ? "as_of" : "";
  if (asOf) {
    for (const d of dated) if (d.on_or_after <= asOf) reached = d.on_or_after;
    notReached = dated.find((d) => d.on_or_after > asOf)?.on_or_after ?? notReached;
  }
  for (const d of dated) {
    const given = facts[d.fact];
    if (given === undefined) continue;
    if (given && d.on_or_after >= notReached)
      throw new DateFactConflict(d.fact, `${d.fact} is true, but ${notReachedBy} places the date before ${notReached}.`);
    if (!given && d.on_or_after <= reached)
      throw new DateFactConflict(d.fact, `${d.fact} is false, but ${reachedBy} places the date on or after ${reached}.`);
    if (given && d.on_or_after > reached) (reached = d.on_or_after), (reachedBy = d.fact);
    if (!given && d.on_or_after < notReached) (notReached = d.on_or_after), (notReachedBy = d.fact);
  }
  const out: Record<string, boolean> = {};
  for (const d of dated) {
    if (facts[d.fact] !== undefined) continue;
    if (d.on_or_after <= reached) out[d.fact] = true;
    else if (d.on_or_after >= notReached) out[d.fact] = false;
  }
  return out;
}

/** The open date facts become one question, asked where the most decisive of them stood. */
function _foldDateQuestions(evaluation: Evaluation, dated: readonly DateFact[]): Evaluation {
  const names = new Set(dated.map((d) => d.fact));
  const open = evaluation.missing_facts.filter((f) => names.has(f.id));
  if (open.length === 0) return evaluation;
  const decides = [...new Set(open.flatMap((f) => f.decides))];
  const question = {
    id: AS_OF_QUESTION_ID,
    question: `On what date is the case assessed? Give it as as_of (YYYY-MM-DD): it settles every date fact of this node (${open.map((f) => f.id).join(", ")}).`,
    decides,
    settles: decides.length,
  };
  const missing: Evaluation["missing_facts"] = [];
  for (const f of evaluation.missing_facts) {
    if (!names.has(f.id)) missing.push(f);
    else if (f === open[0]) missing.push(question);
  }
  return { ...evaluation, missing_facts: missing, ask_first: missing[0]?.id ?? null };
}
