/**
 * Calibration of search's `match` signal on the real content, over real HTTP as a caller without a
 * key (every caller is ranked alike): search-calibration.json holds questions the content answers
 * (with the nodes that answer them) and questions it does not, many next to a field it covers. A
 * `good` must mean that a result answers (an expected node in the top 3), and a question nothing
 * answers must not be called good. The figures are reported in docs/endpoints.md › Search.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { realContentDist } from "../helpers/build-fixture.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";

const set = JSON.parse(readFileSync(new URL("./search-calibration.json", import.meta.url), "utf8")) as {
  covered: Array<{ q: string; expected: string[] }>;
  uncovered: string[];
};

const MIN_PRECISION_OF_GOOD = 0.95;
const MIN_UNCOVERED_NOT_GOOD = 0.9;

interface Answer {
  match: "good" | "poor" | "none";
  results: Array<{ id: string; score: number }>;
}

let svc: TestService;
const answers = new Map<string, Answer>();

beforeAll(async () => {
  svc = await startTestService(realContentDist(), { ANON_RATE_PER_MINUTE: "100000" });
  for (const q of [...set.covered.map((c) => c.q), ...set.uncovered]) {
    const res = await svc.request(`/api/search?q=${encodeURIComponent(q)}&limit=10`);
    expect(res.status, q).toBe(200);
    answers.set(q, res.body as Answer);
  }
}, 180_000);
afterAll(() => svc?.close());

describe("search calibration", () => {
  it("has at least 100 labelled questions, at least 40 of them not covered", () => {
    expect(set.covered.length + set.uncovered.length).toBeGreaterThanOrEqual(100);
    expect(set.uncovered.length).toBeGreaterThanOrEqual(40);
  });

  it("returns results in score order, the first result's score deciding match", () => {
    for (const [q, { match, results }] of answers) {
      const scores = results.map((r) => r.score);
      expect(scores, q).toEqual([...scores].sort((a, b) => b - a));
      if (results.length === 0) expect(match, q).toBe("none");
      else expect(match, q).toBe(results[0]!.score >= 0.45 ? "good" : "poor");
    }
  });

  it(`calls a search good only when a result answers it (precision ≥ ${MIN_PRECISION_OF_GOOD}) and leaves ${MIN_UNCOVERED_NOT_GOOD * 100} % of uncovered questions not good`, () => {
    let good = 0;
    let answeredInTop3 = 0;
    let answeredFirst = 0;
    const wrong: string[] = [];
    for (const { q, expected } of set.covered) {
      const { match, results } = answers.get(q)!;
      if (match !== "good") continue;
      good += 1;
      const top3 = results.slice(0, 3).map((r) => r.id);
      if (top3.some((id) => expected.includes(id))) answeredInTop3 += 1;
      else wrong.push(`${q} → ${top3.join(", ")}`);
      if (expected.includes(results[0]!.id)) answeredFirst += 1;
    }
    const uncoveredGood = set.uncovered.filter((q) => answers.get(q)!.match === "good");
    for (const q of uncoveredGood) wrong.push(`${q} (not covered) → ${answers.get(q)!.results[0]!.id}`);
    const precision = answeredInTop3 / (good + uncoveredGood.length);
    const notGood = 1 - uncoveredGood.length / set.uncovered.length;
    console.log(
      `search calibration: precision of "good" ${precision.toFixed(3)} (top 3; first result ${(answeredFirst / (good + uncoveredGood.length)).toFixed(3)}), ` +
        `uncovered not good ${notGood.toFixed(3)} (${set.uncovered.length - uncoveredGood.length}/${set.uncovered.length}), ` +
        `covered called good ${good}/${set.covered.length}; wrong: ${wrong.join("; ")}`,
    );
    expect(precision, wrong.join("\n")).toBeGreaterThanOrEqual(MIN_PRECISION_OF_GOOD);
    expect(notGood, uncoveredGood.join("\n")).toBeGreaterThanOrEqual(MIN_UNCOVERED_NOT_GOOD);
  });
});
