/**
 * Runs every scenario in test/content/scenarios/*.yaml against the REAL built content (dist/ from
 * the global setup): the compiled rules of the named node, evaluated with the scenario's facts.
 * Item: { name, vertical, node, as_of?, facts: { fact: bool }, expect: { holds?, not_holds?, undetermined?, missing?, derived?, says?, never_says? }, basis }
 * Evaluated as POST /api/evaluate does: with the node's date facts derived from `as_of` and from each other.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateWithDates } from "../../runtime/domain/rules/date-facts.ts";
import type { NodeResponse } from "../../runtime/shared/schema/artifacts.ts";
import type { CompiledRuleSet } from "../../runtime/shared/schema/rules.ts";
import { REPO_ROOT } from "../build/_fixtures.ts";
import { readScenarioFiles } from "../helpers/scenarios.ts";

const DATA_DIR = join(REPO_ROOT, "dist/data");
const files = readScenarioFiles();

describe("content scenarios", () => {
  it("every scenario file is a list of well-formed scenarios", () => {
    for (const { file, items } of files) {
      expect(Array.isArray(items), file).toBe(true);
      for (const s of items) {
        expect(s, `${file}: ${s?.name}`).toMatchObject({
          name: expect.any(String),
          vertical: expect.any(String),
          node: expect.any(String),
          basis: expect.any(String),
        });
        expect(typeof s.facts === "object" && typeof s.expect === "object", `${file}: ${s.name}`).toBe(true);
      }
    }
  });

  for (const { file, items } of files) {
    describe(file, () => {
      for (const s of items) {
        it(`${s.vertical}/${s.node}: ${s.name}`, () => {
          const path = join(DATA_DIR, "verticals", s.vertical, "nodes", `${s.node}.json`);
          expect(existsSync(path), `built node ${s.vertical}/${s.node} (basis: ${s.basis})`).toBe(true);
          const response = JSON.parse(readFileSync(path, "utf8")) as NodeResponse;
          const result = evaluateWithDates(response.node.layers.logic as CompiledRuleSet, s.facts, s.as_of);
          const context = `${s.name} (basis: ${s.basis})`;
          for (const o of s.expect.holds ?? []) expect(result.holds, context).toContain(o);
          for (const o of s.expect.not_holds ?? []) expect(result.does_not_hold, context).toContain(o);
          for (const o of s.expect.undetermined ?? []) expect(result.undetermined, context).toContain(o);
          if (s.expect.missing) expect(result.missing_facts.map((f) => f.id).sort(), context).toEqual([...s.expect.missing].sort());
          if (s.expect.derived) expect(result.derived_facts, context).toEqual(s.expect.derived);
          for (const [o, values] of Object.entries(s.expect.values ?? {}))
            expect(result.outcomes.find((x) => x.id === o)?.values, context).toEqual(values);
          // Typed values come only with an outcome that holds.
          for (const o of result.outcomes) if (o.value !== true) expect(o.values, `${context}: ${o.id}`).toBeUndefined();
          const text = _nodeText(response);
          for (const pattern of s.expect.says ?? []) expect(text, context).toMatch(new RegExp(pattern, "i"));
          for (const pattern of s.expect.never_says ?? []) expect(text, context).not.toMatch(new RegExp(pattern, "i"));
        });
      }
    });
  }
});

/** Everything an agent reads of a node, as one string: summary, layers, questions, outcomes, citations. */
function _nodeText(response: NodeResponse): string {
  const { layers, summary } = response.node;
  const logic = layers.logic;
  return [
    summary,
    ...[layers.logic, layers.directive, layers.skill, layers.action].map((l) => l?.text ?? ""),
    ...(logic?.facts ?? []).map((f) => f.question),
    ...(logic?.outcomes ?? []).map((o) => o.description),
    ...(logic?.rules ?? []).map((r) => r.citation),
  ].join("\n");
}
