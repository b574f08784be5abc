/**
 * A small content tree for runtime tests, assembled in a temp folder: the real catalogue and
 * wrappers plus generated nodes, so tests exercise every row of the access matrix without
 * depending on the real knowledge content. `legal` gets content here only to test the 402 row
 * (a paid vertical that is not index-free).
 */
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface FixtureNode {
  id: string;
  order: number;
  next: string[];
  rules?: boolean;
}

const VERTICALS: Record<string, FixtureNode[]> = {
  "ai-compliance": [
    { id: "aic-start", order: 1, next: ["aic-second"], rules: true },
    { id: "aic-second", order: 2, next: [] },
  ],
  travel: Array.from({ length: 7 }, (_, i) => ({ id: `trv-m${i + 1}`, order: i + 1, next: i < 6 ? [`trv-m${i + 2}`] : [], rules: i === 0 })),
  "a2a-handoff": [{ id: "a2a-one", order: 1, next: [] }],
  "real-estate": [
    { id: "re-one", order: 1, next: ["re-two"] },
    { id: "re-two", order: 2, next: [] },
  ],
  legal: [{ id: "legal-one", order: 1, next: [] }],
};

export function writeFixtureContent(root = mkdtempSync(join(tmpdir(), "vkr-content-"))): string {
  cpSync("content/_catalog", join(root, "_catalog"), { recursive: true });
  cpSync("content/_wrappers", join(root, "_wrappers"), { recursive: true });
  for (const [vertical, nodes] of Object.entries(VERTICALS)) {
    const dir = join(root, vertical);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "_index.md"), `---\ntitle: Fixture ${vertical}\nsummary: A small fixture vertical used by the runtime tests of ${vertical}.\nroot: ${nodes[0]!.id}\n---\n`);
    for (const node of nodes) writeFileSync(join(dir, `${node.id}.md`), _node(node));
  }
  return root;
}

// --- Internal helpers ---

function _node(node: FixtureNode): string {
  const rules = node.rules
    ? `facts:
  condition_a: Is condition A true?
  condition_b: Is condition B true?
outcomes:
  outcome_x: Outcome X follows.
rules:
  - id: rule-x
    when: { all: [condition_a, { not: condition_b }] }
    then: outcome_x
    citation: Fixture Regulation, Art. 1(1)
    source: fixture
`
    : "";
  return `---
id: ${node.id}
title: Fixture node ${node.id}
summary: Fixture node ${node.id}, used by the runtime tests to exercise access and metering.
order: ${node.order}
next_nodes: [${node.next.join(", ")}]
created: 2026-11-01
updated: 2026-11-01
status: active
sources:
  - id: fixture
    title: Fixture Regulation, Article 1
    url: https://example.org/fixture
${rules}---

## Logic
Logic text of ${node.id}.

## Directive
Directive text of ${node.id}.

## Skill
Skill text of ${node.id}.

## Action
Action text of ${node.id}.
`;
}
