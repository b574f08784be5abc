/**
 * build/stages/review-records.ts: a node's verdict lives in its vertical's `_review.yaml`; REVIEW.md's
 * summary is generated from it and checked, so the document can no longer say "open" in its summary
 * and "corrected" further down (the audit's finding in real-estate and ai-compliance).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveBuildConfig } from "../../build/config.ts";
import { buildContent } from "../../build/index.ts";
import { loadContent } from "../../build/stages/load.ts";
import { writeReviewDocs } from "../../build/stages/review-records.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

function setup(overlay: string) {
  const tmp = createTempDir();
  const contentDir = materializeFixture(tmp, overlay);
  const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false };
  const codes = async (today = "2026-11-05") => (await buildContent({ ...options, today })).issues.map((i) => i.code);
  return { tmp, contentDir, options, codes, path: (f: string) => join(contentDir, "travel", f) };
}

describe("review records", () => {
  it("a summary that disagrees with the records fails the build; regenerating it from the records passes", async () => {
    const { tmp, contentDir, options, path } = setup("invalid/review_md_stale");
    const failed = await buildContent(options);
    expect(failed.ok).toBe(false);
    expect(failed.issues.filter((i) => i.code === "review_md_stale").map((i) => i.message)).toEqual([
      "the summary block differs from content/travel/_review.yaml: run `npm run review:md`",
    ]);
    expect(writeReviewDocs(loadContent(resolveBuildConfig({ contentDir, rootDir: tmp })))).toEqual([path("REVIEW.md")]);
    expect(readFileSync(path("REVIEW.md"), "utf8")).toContain("| trv-care | corrected |");
    expect((await buildContent(options)).ok).toBe(true);
  });

  it("a heading that states another verdict than the record fails the build", async () => {
    const { tmp, contentDir, options, path } = setup("invalid/review_md_stale");
    writeReviewDocs(loadContent(resolveBuildConfig({ contentDir, rootDir: tmp })));
    writeFileSync(
      path("REVIEW.md"),
      readFileSync(path("REVIEW.md"), "utf8").replace("## trv-care — corrected", "## trv-care — open (not edited)"),
    );
    const result = await buildContent(options);
    expect(result.ok).toBe(false);
    expect(result.issues.find((i) => i.code === "review_md_stale")).toMatchObject({
      line: expect.any(Number),
      message:
        'heading says trv-care is "open" but content/travel/_review.yaml records "corrected": drop the verdict from the heading or correct the record',
    });
  });

  it("every node needs a record, an open verdict an open question, a closed question its resolution", async () => {
    const { codes, path } = setup("invalid/review_question_stale");
    const yaml = readFileSync(path("_review.yaml"), "utf8");
    writeFileSync(path("_review.yaml"), yaml.replace("trv-claims: { status: confirmed, pass: second review }\n", ""));
    expect(await codes()).toContain("review_record_invalid");
    writeFileSync(path("_review.yaml"), yaml.replace("trv-care: { status: corrected,", "trv-care: { status: open,"));
    expect(await codes()).toContain("review_record_invalid");
    writeFileSync(path("_review.yaml"), yaml.replace("was not read.", "was not read.\n      closed: 2026-11-04"));
    expect(await codes()).toContain("review_record_invalid");
    writeFileSync(path("_review.yaml"), yaml);
    expect(await codes()).not.toContain("review_record_invalid");
  });

  it("an open question is a warning once older than its node's review interval (review_by minus reviewed), never fatal", async () => {
    const { options, codes } = setup("invalid/review_question_stale");
    // trv-start: reviewed 2026-11-01, review_by 2026-11-11 (10 days); the question was opened 2026-11-01.
    expect(await codes("2026-11-11")).not.toContain("review_question_stale");
    expect(await codes("2026-11-12")).toContain("review_question_stale");
    const release = await buildContent({ ...options, release: true, today: "2026-11-12" });
    expect(release.issues.find((i) => i.code === "review_question_stale")!.fatal).toBe(false);
  });
});

describe("review records and npm run new", () => {
  it("a scaffolded node gets an unreviewed record and the REVIEW.md summary is rewritten, so the build still passes", async () => {
    const { scaffoldNode } = await import("../../build/scaffold/new-node.ts");
    const { contentDir, options, path } = setup("invalid/review_question_stale");
    scaffoldNode({ contentDir, vertical: "travel", id: "trv-new-topic", now: new Date("2026-11-05T10:00:00Z") });
    expect(readFileSync(path("_review.yaml"), "utf8")).toContain("trv-new-topic: { status: unreviewed, pass: not reviewed yet }");
    expect(readFileSync(path("REVIEW.md"), "utf8")).toContain("| trv-new-topic | unreviewed |");
    const result = await buildContent({ ...options, today: "2026-11-05" });
    expect(result.issues.filter((i) => i.code.startsWith("review_")).map((i) => i.code)).toEqual([]);
    expect(result.ok).toBe(true);
  });
});
