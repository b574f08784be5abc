/**
 * A small content tree for runtime tests, assembled in a temp folder: the real catalogue and
 * wrappers plus generated nodes, so tests exercise every row of the access matrix without
 * depending on the real knowledge content. `legal` gets content here only to test the 402 row
 * (a paid vertical that is not index-free). `ecommerce` is live like travel (index free, first 5
 * modules on trial) with one module more than its trial.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CohortName } from "../../runtime/shared/schema/catalog.ts";

export interface FixtureNode {
  id: string;
  order: number;
  next: string[];
  rules?: boolean;
}

/** Authored dates of one node; any field left out keeps its default. */
export interface FixtureDates {
  created?: string;
  updated?: string;
  /** Sets `status: deprecated` too. */
  deprecated_at?: string;
  replaced_by?: string;
}

export interface FixtureOptions {
  /** Dates per node (default: created and updated 2026-11-01, active), e.g. to spread the changelog. */
  dates?: (vertical: string, node: FixtureNode) => FixtureDates | undefined;
  /**
   * Nodes added to a vertical after its default ones, e.g. the second build of a delta test. Each
   * is linked from the node before it (so it is reachable from the root).
   */
  extraNodes?: Record<string, FixtureNode[]>;
  /** Member caps replacing the catalogue's (the caps are data), e.g. to fill a cohort in a test. */
  memberCaps?: Partial<Record<CohortName, number>>;
}

const VERTICALS: Record<string, FixtureNode[]> = {
  "ai-compliance": [
    { id: "aic-start", order: 1, next: ["aic-second"], rules: true },
    { id: "aic-second", order: 2, next: [] },
  ],
  travel: Array.from({ length: 7 }, (_, i) => ({
    id: `trv-m${i + 1}`,
    order: i + 1,
    next: i < 6 ? [`trv-m${i + 2}`] : [],
    rules: i === 0,
  })),
  "a2a-handoff": [{ id: "a2a-one", order: 1, next: [] }],
  "real-estate": [
    { id: "re-one", order: 1, next: ["re-two"] },
    { id: "re-two", order: 2, next: [] },
  ],
  legal: [{ id: "legal-one", order: 1, next: [] }],
  ecommerce: Array.from({ length: 6 }, (_, i) => ({
    id: `ecom-m${i + 1}`,
    order: i + 1,
    next: i < 5 ? [`ecom-m${i + 2}`] : [],
    rules: i === 0,
  })),
};

export function writeFixtureContent(root = mkdtempSync(join(tmpdir(), "vkr-content-")), options: FixtureOptions = {}): string {
  cpSync("content/_catalog", join(root, "_catalog"), { recursive: true });
  cpSync("content/_wrappers", join(root, "_wrappers"), { recursive: true });
  if (options.memberCaps) _setMemberCaps(join(root, "_catalog", "cohorts.yaml"), options.memberCaps);
  for (const [vertical, defaults] of Object.entries(VERTICALS)) {
    const nodes = [...defaults];
    for (const extra of options.extraNodes?.[vertical] ?? []) {
      const before = nodes.at(-1)!;
      nodes[nodes.length - 1] = { ...before, next: [...before.next, extra.id] };
      nodes.push(extra);
    }
    const dir = join(root, vertical);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "_index.md"),
      `---\ntitle: Fixture ${vertical}\nsummary: A small fixture vertical used by the runtime tests of ${vertical}.\nroot: ${nodes[0]!.id}\n---\n`,
    );
    for (const node of nodes) writeFileSync(join(dir, `${node.id}.md`), _node(node, options.dates?.(vertical, node) ?? {}));
  }
  return root;
}

// --- Internal helpers ---

function _setMemberCaps(file: string, caps: Partial<Record<CohortName, number>>): void {
  let yaml = readFileSync(file, "utf8");
  for (const [name, cap] of Object.entries(caps)) {
    const entry = new RegExp(`(- name: ${name}\\n\\s+member_cap: )\\d+`);
    if (!entry.test(yaml)) throw new Error(`cohorts.yaml has no member_cap for ${name}`);
    yaml = yaml.replace(entry, `$1${cap}`);
  }
  writeFileSync(file, yaml);
}

function _node(node: FixtureNode, dates: FixtureDates): string {
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
created: ${dates.created ?? "2026-11-01"}
updated: ${dates.updated ?? "2026-11-01"}
status: ${dates.deprecated_at ? `deprecated\ndeprecated_at: ${dates.deprecated_at}` : "active"}
${dates.replaced_by ? `replaced_by: ${dates.replaced_by}\n` : ""}sources:
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
