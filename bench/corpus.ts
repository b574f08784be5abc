/**
 * A synthetic content folder for the build benchmark: N verticals × M nodes with bodies and rules
 * shaped like the real content (four layers with lists, a table and a code block; facts, outcomes
 * and chained rules with citations). Catalogue data and wrappers are copied from `content/`.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CorpusOptions {
  verticals: number;
  nodesPerVertical: number;
}

/** Writes the corpus into `dir` (which becomes the content folder). */
export function writeCorpus(dir: string, realContentDir: string, options: CorpusOptions): void {
  mkdirSync(join(dir, "_catalog"), { recursive: true });
  for (const f of ["cohorts.yaml", "limits.yaml", "status.yaml"]) cpSync(join(realContentDir, "_catalog", f), join(dir, "_catalog", f));
  cpSync(join(realContentDir, "_wrappers"), join(dir, "_wrappers"), { recursive: true });
  const slugs = Array.from({ length: options.verticals }, (_, v) => `bench-${String(v + 1).padStart(2, "0")}`);
  writeFileSync(join(dir, "_catalog", "verticals.yaml"), toVerticalsYaml(slugs));
  for (const slug of slugs) {
    mkdirSync(join(dir, slug));
    writeFileSync(
      join(dir, slug, "_index.md"),
      `---\ntitle: Benchmark vertical ${slug}\nsummary: Synthetic nodes for the build benchmark of ${slug}; start at ${nodeId(slug, 1)}.\nroot: ${nodeId(slug, 1)}\n---\n`,
    );
    for (let i = 1; i <= options.nodesPerVertical; i++) {
      writeFileSync(join(dir, slug, `${nodeId(slug, i)}.md`), toNodeMarkdown(slug, i, options.nodesPerVertical));
    }
  }
}

/** File name (= id) of node `i` of a vertical. */
export function nodeId(slug: string, i: number): string {
  return `${slug.replace("bench-", "b")}-node-${String(i).padStart(5, "0")}`;
}

/** One node; `revision` changes the body and `updated`, as an author's edit would. */
export function toNodeMarkdown(slug: string, i: number, total: number, revision = 0): string {
  const next = [...new Set([i + 1, i * 2, i * 3])].filter((n) => n <= total).map((n) => nodeId(slug, n));
  const day = String(1 + (i % 28)).padStart(2, "0");
  const updated = revision ? `2026-12-${String(revision).padStart(2, "0")}T12:00:00Z` : `2026-11-${day}`;
  const f = (k: number) => `cond_${k}_${i % 7}`;
  return `---
id: ${nodeId(slug, i)}
title: "Synthetic rule node ${i} of ${slug}: obligations when conditions ${i % 7} and ${i % 11} apply"
summary: >-
  Decides whether obligation ${i} applies to an operator in ${slug}, which article governs it, and
  what the operator must file and by when. Read it after the triage node when condition ${i % 7} holds.
order: ${i}
next_nodes: [${next.join(", ")}]
created: 2026-10-${day}
updated: ${updated}
status: active
sources:
  - id: reg
    title: Regulation (EU) 2024/${1000 + (i % 900)} of 13 June 2024, Articles ${i % 50} to ${(i % 50) + 5}
    url: https://eur-lex.europa.eu/eli/reg/2024/${1000 + (i % 900)}/oj
  - id: guide
    title: Commission guidelines C(2025) ${i % 9000}, 6 February 2025
facts:
${[1, 2, 3, 4, 5, 6].map((k) => `  ${f(k)}: Does condition ${k} (variant ${i % 7}) hold for the operator's system as placed on the market?`).join("\n")}
outcomes:
  in_scope: The operator and system are within the scope of the regulation.
  obligation_applies: Obligation ${i} applies and must be met before placing on the market.
  exemption_available: The simplified regime of Article ${i % 50}(4) is available.
rules:
  - id: scope
    when: { all: [${f(1)}, { any: [${f(2)}, ${f(3)}] }] }
    then: in_scope
    citation: Regulation (EU) 2024/${1000 + (i % 900)}, Art. ${i % 50}(1)
    source: reg
  - id: obligation
    when: { all: [in_scope, ${f(4)}, { not: ${f(5)} }] }
    then: obligation_applies
    citation: Regulation (EU) 2024/${1000 + (i % 900)}, Art. ${(i % 50) + 1}(2)(a)
    source: reg
  - id: exemption
    when: { all: [obligation_applies, ${f(6)}] }
    then: exemption_available
    citation: Commission guidelines C(2025) ${i % 9000}, point ${i % 40}
    source: guide
---

## Logic
The node decides three outcomes in order. **Scope** needs condition 1 and either condition 2 or
condition 3 (Art. ${i % 50}(1)). The **obligation** applies to an in-scope operator when condition 4
holds and condition 5 does not; condition 5 is the carve-out for research use. The **exemption**
only matters once the obligation applies, and needs condition 6.

| Outcome | Needs | Article |
|---|---|---|
| in_scope | cond 1 and (cond 2 or cond 3) | Art. ${i % 50}(1) |
| obligation_applies | in_scope, cond 4, not cond 5 | Art. ${(i % 50) + 1}(2)(a) |
| exemption_available | obligation_applies, cond 6 | Guidelines, point ${i % 40} |

Edge cases: a system placed on the market before the application date is covered only after a
significant change in its design. Revision ${revision}.

## Directive
- Do not conclude that the obligation applies before scope is established (Art. ${i % 50}(1)).
- Do not treat the exemption as automatic: the operator must document condition 6 (guidelines, point ${i % 40}).
- Cite the article and paragraph for every conclusion; never paraphrase a threshold.
- When a fact is unknown, ask for it; do not assume the less burdensome answer.

## Skill
1. Establish conditions 1 to 3 from the operator's documentation.
2. Evaluate scope; stop if it does not hold and record why.
3. Establish conditions 4 and 5, then evaluate the obligation.
4. If the obligation applies, check condition 6 for the simplified regime.
5. Record the facts, the outcomes and the citations in the compliance file.

\`\`\`json
{ "node": "${nodeId(slug, i)}", "facts": { "${f(1)}": true, "${f(2)}": false } }
\`\`\`

## Action
- [ ] Evaluate the rules with the facts you have; list the missing facts.
- [ ] If \`obligation_applies\` holds, file the declaration before placing on the market.
- [ ] If \`exemption_available\` holds, attach the condition 6 evidence.
- [ ] Follow next_nodes for the related obligations.
`;
}

// --- Internal helpers ---

function toVerticalsYaml(slugs: string[]): string {
  const entries = slugs.map(
    (slug, v) => `  - slug: ${slug}
    title: Benchmark vertical ${v + 1}
    index_free: true
    fully_open: ${v === 0}
    coming_soon: false
    paid: ${v !== 0}
    included_with_membership: false${v === 1 ? "\n    trial: { first: 5 }" : ""}`,
  );
  return `api_version: 0.9.23\nverticals:\n${entries.join("\n")}\n`;
}
