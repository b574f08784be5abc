/**
 * One fixture per diagnostic code (test/fixtures/content/invalid/<code>/, an overlay on basic/):
 * building it reports that code, naming the file, and the line and field where they exist.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatReport, WARNING_CODES } from "../../build/diagnostics.ts";
import { buildContent, formatIssue, ISSUE_CODES, type IssueCode } from "../../build/index.ts";
import { createTempDir, FIXTURES_DIR, materializeFixture } from "./_fixtures.ts";

/** Where each problem must be reported: file (relative to the fixture root), line, field. */
const EXPECTED: Record<Exclude<IssueCode, "artifact_invalid">, { file: string; line?: number; pointer?: string }> = {
  yaml_invalid: { file: "content/travel/trv-care.md", line: 3 },
  schema_invalid: { file: "content/travel/trv-care.md", line: 5, pointer: "order" },
  date_invalid: { file: "content/travel/trv-care.md", line: 8, pointer: "updated" },
  id_mismatch: { file: "content/travel/trv-care.md", line: 2, pointer: "id" },
  id_duplicate: { file: "content/travel/trv-care.md", line: 2, pointer: "id" },
  order_duplicate: { file: "content/travel/trv-compensation.md", line: 5, pointer: "order" },
  link_dangling: { file: "content/travel/trv-care.md", line: 6, pointer: "next_nodes[1]" },
  node_unreachable: { file: "content/travel/trv-orphan.md", line: 2, pointer: "id" },
  layer_missing: { file: "content/travel/trv-care.md" },
  layer_empty: { file: "content/travel/trv-care.md", line: 21 },
  layer_order: { file: "content/travel/trv-care.md", line: 18 },
  layer_unknown: { file: "content/travel/trv-care.md", line: 21 },
  rule_unknown_name: { file: "content/travel/trv-start.md", line: 27, pointer: "rules[1].when.all[1]" },
  rule_name_ambiguous: { file: "content/travel/trv-start.md", line: 20, pointer: "outcomes.eu261_applies" },
  rule_then_undeclared: { file: "content/travel/trv-start.md", line: 28, pointer: "rules[1].then" },
  rule_id_duplicate: { file: "content/travel/trv-start.md", line: 26, pointer: "rules[1].id" },
  rule_cycle: { file: "content/travel/trv-compensation.md", line: 27, pointer: "rules[0].when" },
  rule_source_unknown: { file: "content/travel/trv-start.md", line: 30, pointer: "rules[1].source" },
  value_outcome_undeclared: { file: "content/travel/trv-start.md", line: 21, pointer: "values.compensation_eur" },
  figure_invalid: { file: "content/travel/_figures.yaml", line: 1, pointer: "eu_band_short.unit" },
  figure_unknown: { file: "content/travel/trv-start.md", line: 35 },
  figure_conflict: { file: "content/travel/trv-start.md", line: 21, pointer: "values.eu261_applies[0].figure" },
  outcome_without_rule: { file: "content/travel/trv-start.md", line: 20, pointer: "outcomes.uk261_applies" },
  fact_unused: { file: "content/travel/trv-start.md", line: 18, pointer: "facts.uk_carrier" },
  intermediate_invalid: { file: "content/travel/trv-compensation.md", line: 40, pointer: "intermediate[0]" },
  date_fact_invalid: { file: "content/travel/trv-compensation.md", line: 41, pointer: "date_facts.flight_on_or_after_2026" },
  exclusion_outcome_unknown: { file: "content/travel/trv-compensation.md", line: 41, pointer: "exclusions[0].outcomes[1]" },
  exclusion_violated: { file: "content/travel/trv-compensation.md", line: 46, pointer: "exclusions[0]" },
  outcome_never_holds: { file: "content/travel/trv-compensation.md", line: 23, pointer: "outcomes.compensation_and_no_delay" },
  fact_never_matters: { file: "content/travel/trv-compensation.md", line: 20, pointer: "facts.checked_in_on_time" },
  source_id_duplicate: { file: "content/travel/trv-care.md", line: 13, pointer: "sources[1].id" },
  deprecation_date_missing: { file: "content/travel/trv-care.md", line: 9, pointer: "status" },
  deprecation_fields_on_active: { file: "content/travel/trv-care.md", line: 10, pointer: "replaced_by" },
  dates_out_of_order: { file: "content/travel/trv-care.md", line: 8, pointer: "updated" },
  index_missing: { file: "content/travel/_index.md" },
  index_invalid: { file: "content/travel/_index.md", line: 1, pointer: "root" },
  root_unknown: { file: "content/travel/_index.md", line: 4, pointer: "root" },
  vertical_unknown: { file: "content/ethics/" },
  catalog_missing: { file: "content/_catalog/limits.yaml" },
  catalog_invalid: { file: "content/_catalog/limits.yaml", line: 4, pointer: "hourly_rate_limt" },
  catalog_slug_duplicate: { file: "content/_catalog/verticals.yaml", line: 14, pointer: "verticals[1].slug" },
  wrapper_missing: { file: "content/_wrappers/cta.md" },
  wrapper_empty: { file: "content/_wrappers/community-note.md" },
  wrapper_unknown: { file: "content/_wrappers/footer.md" },
  updated_not_bumped: { file: "content/travel/trv-care.md", line: 8, pointer: "updated" },
  changelog_backdated: { file: "content/travel/trv-late.md", line: 7, pointer: "created" },
  value_untyped: { file: "content/travel/trv-care.md", line: 16, pointer: "outcomes.care_due" },
  placeholder_content: { file: "content/travel/trv-care.md", line: 13, pointer: "sources[0].url" },
  review_overdue: { file: "content/travel/trv-start.md", line: 11, pointer: "review_by" },
  statement_outdated: { file: "content/travel/trv-start.md", line: 35 },
  review_after_announcement: { file: "content/travel/trv-start.md", line: 38 },
  review_record_invalid: { file: "content/travel/_review.yaml", line: 2, pointer: "trv-strat" },
  review_md_stale: { file: "content/travel/REVIEW.md", line: 5 },
  review_question_stale: { file: "content/travel/_review.yaml", line: 5, pointer: "trv-start.questions.0" },
  review_behind_change: { file: "content/travel/trv-start.md", line: 10, pointer: "reviewed" },
};
/** These lint against a previous build, so the test first publishes basic/ as that build. */
const NEEDS_PREVIOUS = new Set<IssueCode>(["updated_not_bumped", "changelog_backdated"]);

describe("diagnostics: one invalid fixture per code", () => {
  it("has a fixture for every code except the build's own self-check", () => {
    const folders = readdirSync(join(FIXTURES_DIR, "invalid")).sort();
    expect(folders).toEqual(ISSUE_CODES.filter((c) => c !== "artifact_invalid").sort());
  });

  for (const [code, expected] of Object.entries(EXPECTED) as Array<[IssueCode, (typeof EXPECTED)[keyof typeof EXPECTED]]>) {
    it(`${code}: reported with file${expected.line ? ", line" : ""}${expected.pointer ? " and field" : ""}`, async () => {
      const tmp = createTempDir();
      const contentDir = materializeFixture(tmp);
      const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp };
      if (NEEDS_PREVIOUS.has(code)) expect((await buildContent(options)).ok).toBe(true);
      materializeFixture(tmp, `invalid/${code}`);
      const result = await buildContent({ ...options, write: NEEDS_PREVIOUS.has(code) });

      const issue = result.issues.find((i) => i.code === code && (!expected.pointer || i.pointer === expected.pointer));
      expect(issue, `issues: ${result.issues.map(formatIssue).join("\n")}`).toBeDefined();
      expect(issue).toMatchObject({ file: expected.file, fatal: !WARNING_CODES.has(code) });
      if (expected.line) expect(issue!.line).toBe(expected.line);
      if (expected.pointer) expect(issue!.pointer).toBe(expected.pointer);
      expect(formatIssue(issue!)).toContain(expected.line ? `${expected.file}:${expected.line}` : expected.file);
      expect(result.ok).toBe(WARNING_CODES.has(code));
    });
  }
});

describe("formatIssue / formatReport", () => {
  it("prints file:line field: message, grouped by file", () => {
    const issue = {
      code: "link_dangling" as const,
      file: "content/travel/x.md",
      line: 7,
      pointer: "next_nodes[2]",
      message: 'unknown node "visa-chek"',
      fatal: true,
    };
    expect(formatIssue(issue)).toBe('content/travel/x.md:7 next_nodes[2]: unknown node "visa-chek"');
    const other = { ...issue, file: "content/a.md", line: 1, code: "fact_unused" as const, fatal: false, message: "m" };
    expect(formatReport([issue, other]).split("\n")).toEqual([
      "warning content/a.md:1 next_nodes[2]: m  [fact_unused]",
      "",
      'error   content/travel/x.md:7 next_nodes[2]: unknown node "visa-chek"  [link_dangling]',
    ]);
  });
});

describe("one pass", () => {
  it("reports every problem of a run at once: a bad date does not hide a rule error, nor a schema error the rules", async () => {
    const tmp = createTempDir();
    const result = await buildContent({
      contentDir: materializeFixture(tmp, "one-pass"),
      outDir: join(tmp, "dist"),
      rootDir: tmp,
      write: false,
    });
    expect(result.ok).toBe(false);
    const found = result.issues.map((i) => [i.file, i.code, i.pointer ?? null]);
    expect(found).toEqual(
      expect.arrayContaining([
        ["content/travel/trv-compensation.md", "date_invalid", "created"],
        ["content/travel/trv-compensation.md", "rule_unknown_name", "rules[1].when.all[1]"],
        ["content/travel/trv-care.md", "schema_invalid", "order"],
        ["content/travel/trv-care.md", "rule_then_undeclared", "rules[0].then"],
        ["content/travel/trv-claims.md", "link_dangling", "next_nodes[0]"],
      ]),
    );
    // The date says its format, and the dangling link names the node meant.
    expect(result.issues.find((i) => i.code === "date_invalid")!.message).toContain("write YYYY-MM-DD");
    expect(result.issues.find((i) => i.code === "link_dangling")!.message).toContain("trv-compensation");
    // A rejected node is not reported again as missing where others link to it.
    expect(result.issues.filter((i) => i.code === "link_dangling")).toHaveLength(1);
  });
});
