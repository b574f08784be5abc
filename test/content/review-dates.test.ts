/**
 * Review dates, over the REAL content: every node carries `reviewed` and `review_by`,
 * node responses and /browse pages show them, and the content builds without an overdue review or
 * a future-event statement whose date has passed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NodeResponse } from "../../runtime/shared/schema/artifacts.ts";
import { REPO_ROOT } from "../build/_fixtures.ts";
import { checkRealContent } from "../helpers/content-check.ts";

const DIST = join(REPO_ROOT, "dist");
const DATE = /^\d{4}-\d{2}-\d{2}$/;

describe("review dates in the content", () => {
  const nodes: Array<{ vertical: string; node: NodeResponse["node"] }> = [];
  for (const vertical of readdirSync(join(DIST, "data/verticals")).sort()) {
    const dir = join(DIST, "data/verticals", vertical, "nodes");
    for (const file of readdirSync(dir).filter((f) => /^[a-z0-9-]+\.json$/.test(f))) {
      nodes.push({ vertical, node: (JSON.parse(readFileSync(join(dir, file), "utf8")) as NodeResponse).node });
    }
  }

  it("every node response carries reviewed and review_by, in that order of time", () => {
    expect(nodes.length).toBeGreaterThan(70);
    const missing = nodes.filter(
      ({ node }) => !DATE.test(node.reviewed ?? "") || !DATE.test(node.review_by ?? "") || node.review_by! < node.reviewed!,
    );
    expect(missing.map(({ vertical, node }) => `${vertical}/${node.id}`)).toEqual([]);
  });

  it("the /browse page of a node shows both dates", () => {
    const { vertical, node } = nodes.find((n) => n.node.id === "ees-entry-exit")!;
    const dir = join(DIST, "browse", vertical, "nodes");
    const page = [`${node.id}.html`, `${node.id}.locked.html`].map((f) => join(dir, f)).find(existsSync)!;
    const html = readFileSync(page, "utf8");
    expect(html).toContain(`<dt>Reviewed</dt><dd>${node.reviewed}</dd>`);
    expect(html).toContain(`<dt>Review by</dt><dd>${node.review_by}</dd>`);
  });

  // The first build of the real content in this worker also loads the build's modules: on a busy
  // machine that alone has taken longer than the default 30 s.
  it("builds with no overdue review, no passed future-event statement and no review due after an announced date (as of the review date)", {
    timeout: 120_000,
  }, async () => {
    const result = await checkRealContent({ today: "2026-11-23" });
    expect(result.ok).toBe(true);
    expect(
      result.issues.filter((i) => i.code === "review_overdue" || i.code === "statement_outdated" || i.code === "review_after_announcement"),
    ).toEqual([]);
  });

  it("every vertical keeps its review records in _review.yaml, one per node, and REVIEW.md agrees with them", {
    timeout: 120_000,
  }, async () => {
    const verticals = readdirSync(join(REPO_ROOT, "content")).filter(
      (d) => !d.startsWith("_") && existsSync(join(REPO_ROOT, "content", d, "_index.md")),
    );
    expect(verticals.sort()).toEqual(["a2a-handoff", "ai-compliance", "ecommerce", "real-estate", "travel", "traversal"]);
    for (const v of verticals) {
      expect(existsSync(join(REPO_ROOT, "content", v, "_review.yaml")), v).toBe(true);
      expect(readFileSync(join(REPO_ROOT, "content", v, "REVIEW.md"), "utf8"), v).toContain("<!-- review-records:");
    }
    const result = await checkRealContent({ release: true });
    expect(
      result.issues.filter(
        (i) =>
          i.code.startsWith("review_record") ||
          i.code === "review_md_stale" ||
          i.code === "review_question_stale" ||
          i.code === "review_behind_change",
      ),
    ).toEqual([]);
    expect(result.ok).toBe(true);
  });
});
