/** Stage rules: names → explicit ops, dependency order, sources resolved. */
import { describe, expect, it } from "vitest";
import { createDiagnostics } from "../../build/diagnostics.ts";
import type { NodeFrontmatter } from "../../build/schema/frontmatter.ts";
import { compileRuleSet } from "../../build/stages/rules.ts";
import type { ValidatedNode } from "../../build/stages/validate.ts";

function node(fm: Partial<NodeFrontmatter>): ValidatedNode {
  return {
    frontmatter: { sources: [{ id: "s", title: "Source title", url: "https://example.org" }], ...fm } as NodeFrontmatter,
    source: { file: "x.md" },
    parsed: { locate: () => 1 },
  } as unknown as ValidatedNode;
}

describe("rules", () => {
  it("compiles gates with explicit fact/outcome ops and orders chained rules first", () => {
    const diagnostics = createDiagnostics();
    const set = compileRuleSet(
      node({
        facts: { a: "A?", b: "B?" },
        outcomes: { band: "Band.", due: "Due." },
        rules: [
          { id: "band", when: { all: ["due", { not: "b" }] }, then: "band", citation: "Art. 2" },
          { id: "due", when: { any: ["a"] }, then: "due", citation: "Art. 1", source: "s" },
        ],
      }),
      diagnostics,
    );
    expect(diagnostics.issues).toEqual([]);
    expect(set.rules.map((r) => r.id)).toEqual(["due", "band"]);
    expect(set.rules[1]!.when).toEqual({
      op: "all",
      args: [
        { op: "outcome", name: "due" },
        { op: "not", arg: { op: "fact", name: "b" } },
      ],
    });
    expect(set.rules[0]!.source).toEqual({ id: "s", title: "Source title", url: "https://example.org" });
    expect(set.facts).toEqual([
      { id: "a", question: "A?" },
      { id: "b", question: "B?" },
    ]);
    expect(set.outcomes).toEqual([
      { id: "band", description: "Band." },
      { id: "due", description: "Due." },
    ]);
  });

  it("a node without logic compiles to an empty rule set", () => {
    expect(compileRuleSet(node({}), createDiagnostics())).toEqual({ facts: [], outcomes: [], rules: [] });
  });

  it("reports a cycle once, naming the rules in it", () => {
    const diagnostics = createDiagnostics();
    compileRuleSet(
      node({
        outcomes: { x: "X.", y: "Y." },
        rules: [
          { id: "rx", when: "y", then: "x", citation: "c1" },
          { id: "ry", when: "x", then: "y", citation: "c2" },
        ],
      }),
      diagnostics,
    );
    expect(diagnostics.issues.map((i) => [i.code, i.message])).toEqual([
      ["rule_cycle", "rules depend on each other's outcomes in a cycle: rx → ry → rx"],
    ]);
  });
});
