/**
 * A node's compiled rules as readable gate trees: each rule is "IF <tree> THEN <outcome>", the
 * tree a nested list of ALL / ANY / NOT gates whose leaves are facts (with their question) or
 * earlier outcomes. Pure HTML lists, so it reads without script and prints well.
 */
import type { LogicLayer } from "../../runtime/shared/schema/artifacts.ts";
import type { CompiledGate } from "../../runtime/shared/schema/rules.ts";
import { escapeHtml } from "./html-text.ts";

const GATE_WORDS = { all: "ALL of", any: "ANY of" } as const;

export function renderRules(logic: LogicLayer): string {
  if (logic.rules.length === 0) return "";
  const questions = new Map(logic.facts.map((f) => [f.id, f.question]));
  const outcomes = new Map(logic.outcomes.map((o) => [o.id, o.description]));
  const rules = logic.rules.map((rule) => {
    const source = rule.source
      ? ` — ${rule.source.url ? `<a href="${escapeHtml(rule.source.url)}" rel="noopener">${escapeHtml(rule.source.title)}</a>` : escapeHtml(rule.source.title)}`
      : "";
    return (
      `<li class="rule" id="rule-${escapeHtml(rule.id)}"><div class="rule-head"><span class="rule-id">${escapeHtml(rule.id)}</span> ` +
      `THEN <strong class="outcome">${escapeHtml(rule.then)}</strong>: ${escapeHtml(outcomes.get(rule.then) ?? "")}</div>` +
      `<div class="when">IF</div><ul class="gate-tree">${_gate(rule.when, questions, outcomes)}</ul>` +
      `<div class="citation">${escapeHtml(rule.citation)}${source}</div></li>`
    );
  });
  return `<h3>Rules</h3><p class="note">Binary logic gates over facts you supply; an outcome holds only when its gates are decided true, never by estimate (confidence required 1.0). Evaluate them with <code>POST /api/evaluate</code>.</p><ol class="rules">${rules.join("")}</ol>`;
}

// --- Internal helpers ---

function _gate(gate: CompiledGate, questions: Map<string, string>, outcomes: Map<string, string>): string {
  switch (gate.op) {
    case "fact":
      return `<li class="gate fact"><code>${escapeHtml(gate.name)}</code> <span class="question">${escapeHtml(questions.get(gate.name) ?? "")}</span></li>`;
    case "outcome":
      return `<li class="gate outcome-ref">outcome <code>${escapeHtml(gate.name)}</code> holds <span class="question">${escapeHtml(outcomes.get(gate.name) ?? "")}</span></li>`;
    case "not":
      return `<li class="gate not"><span class="op">NOT</span><ul>${_gate(gate.arg, questions, outcomes)}</ul></li>`;
    default:
      return `<li class="gate ${gate.op}"><span class="op">${GATE_WORDS[gate.op]}</span><ul>${gate.args.map((a) => _gate(a, questions, outcomes)).join("")}</ul></li>`;
  }
}
