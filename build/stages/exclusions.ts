/**
 * Exclusions: outcomes a node declares mutually exclusive (`exclusions:`) are proven so over every
 * assignment of its facts, on the compiled decision diagrams: the conjunction of two excluded
 * outcomes' diagrams must be empty, and when it is not, one assignment that makes both hold is
 * reported so the author can evaluate it. Scenario tests find the cases someone thought of; this
 * finds the rest. The same diagrams show outcomes that can never hold and facts that never change
 * any outcome, reported as warnings.
 */
import { DecisionDiagrams, FALSE } from "../../runtime/shared/decision-diagram.ts";
import { suggestClosest } from "../../runtime/shared/did-you-mean.ts";
import { type Diagnostics, type IssueCode, toDisplayPath } from "../diagnostics.ts";
import type { FieldPath } from "../locate.ts";
import type { CompiledNode } from "./rules.ts";

export interface ExclusionStats {
  /** Declared groups, and the pairs they make (a group of n outcomes makes n(n-1)/2). */
  groups: number;
  pairs: number;
  violated: number;
}

/** Checks every node's declared exclusions, and warns on dead outcomes and facts. */
export function checkExclusions(nodes: readonly CompiledNode[], diagnostics: Diagnostics): ExclusionStats {
  const stats: ExclusionStats = { groups: 0, pairs: 0, violated: 0 };
  for (const node of nodes) {
    const { ruleSet } = node;
    if (ruleSet.rules.length === 0) continue;
    const report = (code: IssueCode, path: FieldPath, message: string) =>
      diagnostics.add({ code, file: node.source.file, line: node.parsed.locate(path), pointer: toDisplayPath(path), message });
    const diagrams = new DecisionDiagrams(ruleSet);

    (node.frontmatter.exclusions ?? []).forEach((exclusion, i) => {
      stats.groups += 1;
      const known = exclusion.outcomes.filter((name, j) => {
        if (diagrams.outcomes.has(name)) return true;
        const close = suggestClosest(name, [...diagrams.outcomes.keys()]);
        report(
          "exclusion_outcome_unknown",
          ["exclusions", i, "outcomes", j],
          `"${name}" is not a declared outcome${close ? `; did you mean "${close}"?` : ""}`,
        );
        return false;
      });
      for (let a = 0; a < known.length; a++) {
        for (let b = a + 1; b < known.length; b++) {
          stats.pairs += 1;
          const both = diagrams.conjoin(diagrams.outcomes.get(known[a]!)!, diagrams.outcomes.get(known[b]!)!);
          const witness = diagrams.witness(both);
          if (!witness) continue;
          stats.violated += 1;
          report(
            "exclusion_violated",
            ["exclusions", i],
            `${known[a]} and ${known[b]} both hold with facts ${_factsJson(diagrams, witness)} (any value for the others), though they exclude each other (${exclusion.basis})`,
          );
        }
      }
    });

    const matters = new Set<number>();
    for (const [id, ref] of diagrams.outcomes) {
      if (ref === FALSE)
        report(
          "outcome_never_holds",
          ["outcomes", id],
          `outcome "${id}" holds for no assignment of the facts: its rules contradict themselves or the outcomes they read`,
        );
      diagrams.support(ref, matters);
    }
    diagrams.variables.forEach((id, v) => {
      // A fact no rule uses is fact_unused (stage rules); this is one that rules use to no effect.
      if (!matters.has(v) && _usedByRules(node, id))
        report("fact_never_matters", ["facts", id], `fact "${id}" changes no outcome for any assignment of the other facts`);
    });
  }
  return stats;
}

// --- Internal helpers ---

/** `{"a":true,"b":false}` in declaration order: what an author pastes into /api/evaluate. */
function _factsJson(diagrams: DecisionDiagrams, assignment: ReadonlyMap<number, boolean>): string {
  const facts = [...assignment].sort(([a], [b]) => a - b).map(([v, value]) => `"${diagrams.variables[v]}":${value}`);
  return `{${facts.join(",")}}`;
}

function _usedByRules(node: CompiledNode, fact: string): boolean {
  return JSON.stringify(node.ruleSet.rules.map((r) => r.when)).includes(`{"op":"fact","name":"${fact}"}`);
}
