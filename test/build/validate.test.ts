/** Stage validate: all schema errors at once, canonical dates, stable versions. */
import { describe, expect, it } from "vitest";
import { toIsoDateTime } from "../../build/dates.ts";
import { createDiagnostics } from "../../build/diagnostics.ts";
import { compileSchema } from "../../build/schema/validator.ts";
import type { SourceFile } from "../../build/stages/load.ts";
import { parseSource } from "../../build/stages/parse.ts";
import { validateNodes } from "../../build/stages/validate.ts";

const LAYERS = "\n## Logic\nL\n\n## Directive\nD\n\n## Skill\nS\n\n## Action\nA\n";
const FM = [
  "id: x",
  "title: X",
  "summary: A summary that is long enough.",
  "order: 1",
  "next_nodes: []",
  "created: 2026-11-01",
  "updated: 2026-11-02T10:30:00+01:00",
  "status: active",
  "sources:\n  - id: s\n    title: Source",
].join("\n");
const source = (raw: string): SourceFile => ({ kind: "node", path: "/x.md", file: "v/x.md", vertical: "v", name: "x", raw });
const validate = (raw: string) => {
  const diagnostics = createDiagnostics();
  const nodes = validateNodes([parseSource(source(raw), undefined, { tokens: true })], diagnostics);
  return { nodes, issues: diagnostics.issues };
};

describe("validate", () => {
  it("accepts a minimal node and normalises its dates to UTC", () => {
    const { nodes, issues } = validate(`---\n${FM}\n---\n${LAYERS}`);
    expect(issues).toEqual([]);
    expect(nodes[0]!.dates).toEqual({ created: "2026-11-01T00:00:00Z", updated: "2026-11-02T09:30:00Z" });
    expect(nodes[0]!.layers.skill).toEqual({ text: "S", tokens: 1 });
    expect(nodes[0]!.version).toMatch(/^[0-9a-f]{16}$/);
  });

  it("collects every schema error, each with its line and field", () => {
    const raw = `---\n${FM.replace("order: 1", "order: 0").replace("status: active", "status: retired")}\nextra: 1\n---\n${LAYERS}`;
    const { nodes, issues } = validate(raw);
    expect(nodes).toEqual([]);
    expect(issues.map((i) => [i.code, i.line, i.pointer, i.message])).toEqual([
      ["schema_invalid", 13, "extra", "is not a known field"],
      ["schema_invalid", 5, "order", "must be >= 1"],
      ["schema_invalid", 9, "status", 'must be one of "active", "deprecated"'],
    ]);
  });

  it("version changes with the content, not with formatting or comments", () => {
    const a = validate(`---\n${FM}\n---\n${LAYERS}`).nodes[0]!.version;
    const b = validate(`---\n# a comment\n${FM.replace("next_nodes: []", "next_nodes:   []")}\n---\n${LAYERS}`).nodes[0]!.version;
    const c = validate(`---\n${FM}\n---\n${LAYERS.replace("\nS\n", "\nS2\n")}`).nodes[0]!.version;
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it("toIsoDateTime rejects impossible dates", () => {
    expect(toIsoDateTime("2026-02-29")).toBeUndefined();
    expect(toIsoDateTime("2028-02-29")).toBe("2028-02-29T00:00:00Z");
    expect(toIsoDateTime("2026-11-01T09:30Z")).toBe("2026-11-01T09:30:00Z");
  });

  it("accepts the questions a node answers, each one line ending with a question mark, and keeps them out of the version", () => {
    const plain = validate(`---\n${FM}\n---\n${LAYERS}`).nodes[0]!;
    const asked = validate(
      `---\n${FM.replace("order: 1", 'questions:\n  - "Can I get my money back?"\n  - "Who pays for the hotel?"\norder: 1')}\n---\n${LAYERS}`,
    );
    expect(asked.issues).toEqual([]);
    expect(asked.nodes[0]!.frontmatter.questions).toEqual(["Can I get my money back?", "Who pays for the hotel?"]);
    // Questions steer search only: no node response carries them, so they change no version.
    expect(asked.nodes[0]!.version).toBe(plain.version);
    for (const bad of [
      "questions: []",
      'questions:\n  - "Not a question."',
      'questions:\n  - "Short?"',
      'questions: "Is it one string?"',
      'questions:\n  - "Twice the same?"\n  - "Twice the same?"',
    ]) {
      const { nodes, issues } = validate(`---\n${FM.replace("order: 1", `${bad}\norder: 1`)}\n---\n${LAYERS}`);
      expect(nodes, bad).toEqual([]);
      expect(
        issues.map((i) => [i.code, i.pointer?.startsWith("questions")]),
        bad,
      ).toEqual([["schema_invalid", true]]);
    }
  });
});

describe("compileSchema", () => {
  // The meta-schema check is shared between schemas (build/schema/validator.ts); it must still refuse a broken schema.
  it("refuses a schema that breaks the draft-07 meta-schema, each time", () => {
    expect(() => compileSchema({ type: "object" } as never)).not.toThrow();
    expect(() => compileSchema({ type: 5 } as never)).toThrow(/^schema is invalid: data\/type /);
    expect(() => compileSchema({ type: "object", properties: { a: { minLength: -1 } } } as never)).toThrow(/^schema is invalid: /);
  });
});
