/**
 * build/stages/exclusions.ts: declared exclusions are proven over every fact assignment on the
 * compiled diagrams, and a violation comes with an assignment that really makes both outcomes hold.
 */
import { describe, expect, it } from "vitest";
import { createDiagnostics } from "../../build/diagnostics.ts";
import type { NodeFrontmatter } from "../../build/schema/frontmatter.ts";
import { checkExclusions } from "../../build/stages/exclusions.ts";
import { type CompiledNode, compileRuleSet } from "../../build/stages/rules.ts";
import type { ValidatedNode } from "../../build/stages/validate.ts";
import { evaluateRules } from "../../runtime/domain/rules/evaluate.ts";

function node(fm: Partial<NodeFrontmatter>): CompiledNode {
  const validated = {
    frontmatter: { sources: [{ id: "s", title: "Source title" }], ...fm } as NodeFrontmatter,
    source: { file: "x.md" },
    parsed: { locate: () => 1 },
  } as unknown as ValidatedNode;
  return { ...validated, ruleSet: compileRuleSet(validated, createDiagnostics()) };
}

/** The EU261 compensation logic as the audit found it: the delay branch ignored the cancellation. */
const eu261Before = {
  facts: { cancelled: "Cancelled?", notice_14_days: "Told 14 days ahead?", delay_3h: "3 h late?", extraordinary: "Extraordinary?" },
  outcomes: { notice_exception: "No compensation: notice.", compensation_due: "Compensation is owed." },
  rules: [
    { id: "notice", when: { all: ["cancelled", "notice_14_days"] }, then: "notice_exception", citation: "Art. 5(1)(c)(i)" },
    {
      id: "trigger",
      when: {
        any: [
          { all: ["cancelled", { not: "notice_exception" }, { not: "extraordinary" }] },
          { all: ["delay_3h", { not: "extraordinary" }] },
        ],
      },
      then: "compensation_due",
      citation: "Arts 5, 7; Sturgeon",
    },
  ],
  exclusions: [{ outcomes: ["compensation_due", "notice_exception"], basis: "Art. 5(1)(c)(i)" }],
} satisfies Partial<NodeFrontmatter>;

describe("exclusions", () => {
  it("finds the audit's EU261 defect with an assignment under which both outcomes hold", () => {
    const diagnostics = createDiagnostics();
    const n = node(eu261Before);
    expect(checkExclusions([n], diagnostics)).toEqual({ groups: 1, pairs: 1, violated: 1 });
    const [issue] = diagnostics.issues;
    expect(issue).toMatchObject({ code: "exclusion_violated", pointer: "exclusions[0]", fatal: true });
    const facts = JSON.parse(/with facts (\{.*?\})/.exec(issue!.message)![1]!) as Record<string, boolean>;
    expect(facts).toMatchObject({ cancelled: true, notice_14_days: true, delay_3h: true, extraordinary: false });
    expect(evaluateRules(n.ruleSet, facts).holds).toEqual(expect.arrayContaining(["compensation_due", "notice_exception"]));
  });

  it("passes once the delay branch requires a flight that was not cancelled", () => {
    const fixed = structuredClone(eu261Before);
    fixed.rules[1]!.when = {
      any: [
        { all: ["cancelled", { not: "notice_exception" }, { not: "extraordinary" }] },
        { all: ["delay_3h", { not: "cancelled" }, { not: "extraordinary" }] },
      ],
    };
    const diagnostics = createDiagnostics();
    expect(checkExclusions([node(fixed)], diagnostics)).toEqual({ groups: 1, pairs: 1, violated: 0 });
    expect(diagnostics.issues).toEqual([]);
  });

  it("a group of three is three pairs, each checked (250 overlaps 400 and 600 here)", () => {
    const diagnostics = createDiagnostics();
    const bands = node({
      facts: { short: "≤ 1,500 km?", medium: "≤ 3,500 km?" },
      outcomes: { b250: "250.", b400: "400.", b600: "600." },
      rules: [
        { id: "b250", when: "short", then: "b250", citation: "7(1)(a)" },
        { id: "b400", when: "medium", then: "b400", citation: "7(1)(b)" },
        { id: "b600", when: { not: "medium" }, then: "b600", citation: "7(1)(c)" },
      ],
      exclusions: [{ outcomes: ["b250", "b400", "b600"], basis: "Art. 7(1)" }],
    });
    expect(checkExclusions([bands], diagnostics)).toEqual({ groups: 1, pairs: 3, violated: 2 });
    expect(diagnostics.issues[0]!.message).toBe(
      'b250 and b400 both hold with facts {"short":true,"medium":true} (any value for the others), though they exclude each other (Art. 7(1))',
    );
  });
});
