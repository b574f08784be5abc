/**
 * Only relevant questions, as a property over every node of every vertical (the REAL built content).
 * An answer is an outcome the node does not declare `intermediate` (a step that only feeds other
 * rules): questions follow the case, so a fact is asked for the answers only.
 * - answering the listed questions, in any order and with any answers, always determines every
 *   answer the case left open, and never brings up a question that was not listed;
 * - no listed fact is irrelevant: for some completion of the other open facts, flipping it
 *   changes some answer it claims to decide (checked exhaustively when few facts are open), so a
 *   fact reachable only through a step whose reader the given facts already closed is never asked;
 * - a fact not listed never changes an open answer.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluateRules } from "../../runtime/domain/rules/evaluate.ts";
import type { NodeResponse } from "../../runtime/shared/schema/artifacts.ts";
import type { CompiledRuleSet } from "../../runtime/shared/schema/rules.ts";
import { REPO_ROOT } from "../build/_fixtures.ts";

const VERTICALS = join(REPO_ROOT, "dist/data/verticals");
const EXHAUSTIVE_UP_TO = 7;

function ruleSets(): Array<{ name: string; ruleSet: CompiledRuleSet }> {
  const out: Array<{ name: string; ruleSet: CompiledRuleSet }> = [];
  for (const vertical of readdirSync(VERTICALS).sort()) {
    const dir = join(VERTICALS, vertical, "nodes");
    for (const file of readdirSync(dir)
      .filter((f) => /^[a-z0-9-]+\.json$/.test(f))
      .sort()) {
      const response = JSON.parse(readFileSync(join(dir, file), "utf8")) as NodeResponse;
      const logic = response.node.layers.logic;
      if (logic && logic.facts.length > 0) out.push({ name: `${vertical}/${response.node.id}`, ruleSet: logic as CompiledRuleSet });
    }
  }
  return out;
}

/**
 * A case: each fact true, false or left open. Half the cases leave many facts open (much is
 * asked); the other half leave at most EXHAUSTIVE_UP_TO open, so relevance is checked exhaustively.
 */
function caseArbitrary(ruleSet: CompiledRuleSet) {
  const n = ruleSet.facts.length;
  const toFacts = (values: Array<boolean | undefined>) => {
    const facts: Record<string, boolean> = {};
    ruleSet.facts.forEach((f, i) => {
      if (values[i] !== undefined) facts[f.id] = values[i]!;
    });
    return facts;
  };
  const many = fc.tuple(...ruleSet.facts.map(() => fc.constantFrom<boolean | undefined>(true, false, undefined, undefined))).map(toFacts);
  const few = fc
    .tuple(fc.array(fc.boolean(), { minLength: n, maxLength: n }), fc.uniqueArray(fc.nat(n - 1), { maxLength: EXHAUSTIVE_UP_TO }))
    .map(([values, open]) => toFacts(values.map((v, i) => (open.includes(i) ? undefined : v))));
  return fc.oneof(many, few);
}

const valuesOf = (ruleSet: CompiledRuleSet, facts: Record<string, boolean>) =>
  new Map(evaluateRules(ruleSet, facts).outcomes.map((o) => [o.id, o.value]));

describe("only relevant questions, over every node", () => {
  const all = ruleSets();
  it("reads the built content", () => expect(all.length).toBeGreaterThan(60));

  for (const { name, ruleSet } of all) {
    const intermediate = new Set(ruleSet.intermediate ?? []);
    const isAnswer = (outcome: string) => !intermediate.has(outcome);
    it(`${name}: the listed questions settle every open answer, and each can change one`, () => {
      fc.assert(
        fc.property(caseArbitrary(ruleSet), fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }), fc.nat(), (facts, answers, seed) => {
          const first = evaluateRules(ruleSet, facts);
          const listed = new Set(first.missing_facts.map((f) => f.id));
          const openAnswers = first.undetermined.filter(isAnswer);
          expect(first.ask_first).toBe(first.missing_facts[0]?.id ?? null);
          expect(listed.size === 0).toBe(openAnswers.length === 0);

          // Answer in a random order, each time one of the questions still listed.
          const known = { ...facts };
          let step = 0;
          for (;;) {
            const now = evaluateRules(ruleSet, known);
            for (const f of now.missing_facts) if (!listed.has(f.id)) expect(listed.has(f.id), `${f.id} was not asked at first`).toBe(true);
            if (now.missing_facts.length === 0) {
              expect(now.undetermined.filter(isAnswer)).toEqual([]);
              break;
            }
            const pick = now.missing_facts[(seed + step * 7) % now.missing_facts.length]!;
            known[pick.id] = answers[step % answers.length]!;
            step += 1;
          }

          // Every listed fact can change an outcome it names, for some completion of the rest.
          const open = ruleSet.facts.map((f) => f.id).filter((id) => !Object.hasOwn(facts, id));
          if (open.length > EXHAUSTIVE_UP_TO) return;
          // Both checks below visit each completion of the open facts once per open fact: evaluate each once.
          const evaluated = new Map<string, Map<string, unknown>>();
          const valuesAt = (completion: Record<string, boolean>) => {
            const key = open.map((id) => (completion[id] ? "1" : "0")).join("");
            let values = evaluated.get(key);
            if (!values) evaluated.set(key, (values = valuesOf(ruleSet, completion)));
            return values;
          };
          for (const q of first.missing_facts) {
            const others = open.filter((id) => id !== q.id);
            let changes = false;
            for (let mask = 0; mask < 1 << others.length && !changes; mask++) {
              const completion = { ...facts };
              others.forEach((id, i) => (completion[id] = (mask & (1 << i)) !== 0));
              const yes = valuesAt({ ...completion, [q.id]: true });
              const no = valuesAt({ ...completion, [q.id]: false });
              changes = q.decides.filter(isAnswer).some((o) => yes.get(o) !== no.get(o));
            }
            expect(changes, `${q.id} is listed but changes no answer among ${q.decides.join(", ")}`).toBe(true);
          }
          // And a fact not listed never changes an undetermined outcome (expect only on a difference: it is
          // called thousands of times a node, and each call costs more than the comparison).
          for (const id of open.filter((id) => !listed.has(id))) {
            const others = open.filter((o) => o !== id);
            for (let mask = 0; mask < 1 << others.length; mask++) {
              const completion = { ...facts };
              others.forEach((o, i) => (completion[o] = (mask & (1 << i)) !== 0));
              const yes = valuesAt({ ...completion, [id]: true });
              const no = valuesAt({ ...completion, [id]: false });
              for (const o of openAnswers)
                if (yes.get(o) !== no.get(o)) expect(yes.get(o), `${id} changes ${o} but is not listed`).toBe(no.get(o));
            }
          }
        }),
        { numRuns: 30, seed: 16 },
      );
    });
  }
});
