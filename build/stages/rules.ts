/**
 * Stage 4, rules: checks a node's binary logic gates and compiles them. Names resolve to explicit
 * `fact`/`outcome` operators, rules are put in dependency order (an outcome's rules before the
 * rules that read it), and each rule's `source` becomes the `{ id, title, url }` it names.
 */

import { Type } from "@sinclair/typebox";
import { suggestClosest } from "../../runtime/shared/did-you-mean.ts";
import type { AuthoredGate, CompiledGate, CompiledRule, CompiledRuleSet } from "../../runtime/shared/schema/rules.ts";
import { type Diagnostics, type IssueCode, toDisplayPath } from "../diagnostics.ts";
import type { FieldPath } from "../locate.ts";
import { type NodeFrontmatter, NodeFrontmatterSchema } from "../schema/frontmatter.ts";
import { compileSchema } from "../schema/validator.ts";
import type { ParsedFile } from "./parse.ts";
import type { ValidatedNode } from "./validate.ts";

/** The rule fields of the frontmatter on their own, other fields allowed (they were judged by validate). */
const { sources, facts, outcomes, rules, values } = NodeFrontmatterSchema.properties;
const checkRulePart = compileSchema(Type.Object({ sources, facts, outcomes, rules, values }));

export interface CompiledNode extends ValidatedNode {
  ruleSet: CompiledRuleSet;
}

/** Compiles every node's rules; problems are reported, the node is kept (the build fails anyway). */
export function compileRules(nodes: readonly ValidatedNode[], diagnostics: Diagnostics): CompiledNode[] {
  return nodes.map((node) => ({ ...node, ruleSet: compileRuleSet(node, diagnostics) }));
}

/** What compiling a node's rules reads of it. */
export type RuleSource = Pick<ValidatedNode, "source" | "parsed"> & {
  frontmatter: Pick<NodeFrontmatter, "sources" | "facts" | "outcomes" | "rules" | "values" | "intermediate" | "date_facts">;
};

/**
 * The rules of nodes the schema rejected (validate reported why), checked anyway when their rule
 * fields are well-formed: one run then reports a node's rule errors together with its other
 * problems, instead of one stage's errors per run. Diagnostics only; nothing is compiled for output.
 */
export function checkRejectedRules(files: readonly ParsedFile[], accepted: ReadonlySet<string>, diagnostics: Diagnostics): void {
  for (const file of files) {
    if (accepted.has(file.source.file) || file.parsed.yamlError || checkRulePart(file.parsed.data ?? {}).length > 0) continue;
    compileRuleSet({ ...file, frontmatter: file.parsed.data as RuleSource["frontmatter"] }, diagnostics);
  }
}

/** @example compileRuleSet(node, diagnostics).rules.map((r) => r.id) // dependency order */
export function compileRuleSet(node: RuleSource, diagnostics: Diagnostics): CompiledRuleSet {
  const fm = node.frontmatter;
  const report = (code: IssueCode, path: FieldPath, message: string) =>
    diagnostics.add({ code, file: node.source.file, line: node.parsed.locate(path), pointer: toDisplayPath(path), message });
  const facts = Object.entries(fm.facts ?? {});
  const outcomes = Object.entries(fm.outcomes ?? {});
  const factNames = new Set(facts.map(([id]) => id));
  const outcomeNames = new Set(outcomes.map(([id]) => id));
  const sources = new Map(fm.sources.map((s) => [s.id, s]));

  for (const name of factNames) {
    if (outcomeNames.has(name)) report("rule_name_ambiguous", ["outcomes", name], `"${name}" is declared both as a fact and as an outcome`);
  }

  const usedFacts = new Set<string>();
  const concluded = new Set<string>();
  const ruleIds = new Set<string>();
  const compiled: Array<{ rule: CompiledRule; reads: Set<string> }> = [];
  (fm.rules ?? []).forEach((authored, i) => {
    if (ruleIds.has(authored.id)) report("rule_id_duplicate", ["rules", i, "id"], `rule id "${authored.id}" is used twice`);
    ruleIds.add(authored.id);
    if (!outcomeNames.has(authored.then)) {
      report("rule_then_undeclared", ["rules", i, "then"], `"${authored.then}" is not a declared outcome`);
    }
    concluded.add(authored.then);
    if (authored.source !== undefined && !sources.has(authored.source)) {
      report("rule_source_unknown", ["rules", i, "source"], `source "${authored.source}" is not in sources`);
    }
    const reads = new Set<string>();
    const when = _compileGate(authored.when, ["rules", i, "when"], { factNames, outcomeNames, usedFacts, reads, report });
    const source = authored.source === undefined ? undefined : sources.get(authored.source);
    compiled.push({
      rule: {
        id: authored.id,
        when,
        then: authored.then,
        citation: authored.citation,
        ...(source ? { source: { id: source.id, title: source.title, ...(source.url ? { url: source.url } : {}) } } : {}),
      },
      reads,
    });
  });

  for (const [name] of outcomes) {
    if (!concluded.has(name)) report("outcome_without_rule", ["outcomes", name], `no rule concludes outcome "${name}"`);
  }
  for (const name of Object.keys(fm.values ?? {})) {
    if (!outcomeNames.has(name))
      report("value_outcome_undeclared", ["values", name], `values given for "${name}", which is not a declared outcome`);
  }
  for (const [name] of facts) {
    if (!usedFacts.has(name)) report("fact_unused", ["facts", name], `fact "${name}" is never used by a rule`);
  }
  const readOutcomes = new Set(compiled.flatMap((c) => [...c.reads]));
  (fm.intermediate ?? []).forEach((name, i) => {
    if (!outcomeNames.has(name)) {
      const close = suggestClosest(name, [...outcomeNames]);
      report(
        "intermediate_invalid",
        ["intermediate", i],
        `"${name}" is not a declared outcome${close ? `; did you mean "${close}"?` : ""}`,
      );
    } else if (!readOutcomes.has(name)) {
      report("intermediate_invalid", ["intermediate", i], `"${name}" is read by no rule, so it is an answer, not an intermediate step`);
    }
  });

  const dateFacts: Array<{ fact: string; on_or_after: string }> = [];
  for (const [name, date] of Object.entries(fm.date_facts ?? {})) {
    if (!factNames.has(name)) {
      const close = suggestClosest(name, [...factNames]);
      report("date_fact_invalid", ["date_facts", name], `"${name}" is not a declared fact${close ? `; did you mean "${close}"?` : ""}`);
    } else if (!_isCalendarDate(String(date))) {
      report(
        "date_fact_invalid",
        ["date_facts", name],
        `"${String(date)}" is not a date: write YYYY-MM-DD, the first day on which the fact is true`,
      );
    } else dateFacts.push({ fact: name, on_or_after: String(date) });
  }
  dateFacts.sort((a, b) => (a.on_or_after < b.on_or_after ? -1 : a.on_or_after > b.on_or_after ? 1 : 0));

  return {
    facts: facts.map(([id, question]) => ({ id, question })),
    outcomes: outcomes.map(([id, description]) => ({ id, description, ...(fm.values?.[id] ? { values: fm.values[id] } : {}) })),
    rules: _orderRules(compiled, (cycle) => {
      const index = (fm.rules ?? []).findIndex((r) => r.id === cycle[0]);
      report("rule_cycle", ["rules", Math.max(index, 0), "when"], `rules depend on each other's outcomes in a cycle: ${cycle.join(" → ")}`);
    }),
    ...(fm.intermediate?.length ? { intermediate: [...fm.intermediate] } : {}),
    ...(dateFacts.length ? { date_facts: dateFacts } : {}),
  };
}

/** A real calendar date written YYYY-MM-DD (2026-02-30 is not one). */
function _isCalendarDate(text: string): boolean {
  const time = Date.parse(`${text}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === text;
}

// --- Internal helpers ---

interface GateContext {
  factNames: ReadonlySet<string>;
  outcomeNames: ReadonlySet<string>;
  usedFacts: Set<string>;
  reads: Set<string>;
  report: (code: IssueCode, path: FieldPath, message: string) => void;
}

function _compileGate(gate: AuthoredGate, path: FieldPath, ctx: GateContext): CompiledGate {
  if (typeof gate === "string") {
    if (ctx.factNames.has(gate)) {
      ctx.usedFacts.add(gate);
      return { op: "fact", name: gate };
    }
    if (ctx.outcomeNames.has(gate)) {
      ctx.reads.add(gate);
      return { op: "outcome", name: gate };
    }
    const close = suggestClosest(gate, [...ctx.factNames, ...ctx.outcomeNames]);
    ctx.report(
      "rule_unknown_name",
      path,
      `"${gate}" is neither a declared fact nor a declared outcome${close ? `; did you mean "${close}"?` : ""}`,
    );
    return { op: "fact", name: gate };
  }
  if ("all" in gate) return { op: "all", args: gate.all.map((g, i) => _compileGate(g, [...path, "all", i], ctx)) };
  if ("any" in gate) return { op: "any", args: gate.any.map((g, i) => _compileGate(g, [...path, "any", i], ctx)) };
  return { op: "not", arg: _compileGate(gate.not, [...path, "not"], ctx) };
}

/**
 * Depth-first topological order over outcomes, stable in authored order: before a rule, every
 * rule concluding an outcome it reads. A rule reading its own chain back is a cycle.
 */
function _orderRules(compiled: Array<{ rule: CompiledRule; reads: Set<string> }>, onCycle: (cycle: string[]) => void): CompiledRule[] {
  const byOutcome = new Map<string, typeof compiled>();
  for (const c of compiled) byOutcome.set(c.rule.then, [...(byOutcome.get(c.rule.then) ?? []), c]);
  const ordered: CompiledRule[] = [];
  const state = new Map<(typeof compiled)[number], "visiting" | "done">();
  const stack: string[] = [];
  let cycleReported = false;

  const visit = (c: (typeof compiled)[number]): void => {
    if (state.get(c) === "done") return;
    if (state.get(c) === "visiting") {
      if (!cycleReported) onCycle([...stack.slice(stack.indexOf(c.rule.id)), c.rule.id]);
      cycleReported = true;
      return;
    }
    state.set(c, "visiting");
    stack.push(c.rule.id);
    for (const outcome of c.reads) for (const dep of byOutcome.get(outcome) ?? []) visit(dep);
    stack.pop();
    state.set(c, "done");
    ordered.push(c.rule);
  };
  compiled.forEach(visit);
  return ordered;
}
