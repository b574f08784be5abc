/** build/stages/review-dates.ts: which announced dates count as passed, and when the build warns. */
import { describe, expect, it } from "vitest";
import { buildContent } from "../../build/index.ts";
import { lastDayMeant } from "../../build/stages/review-dates.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

describe("review dates", () => {
  it("reads the last day an announcement can mean", () => {
    expect(lastDayMeant("full operation was planned for April 2026")).toBe("2026-04-30");
    expect(lastDayMeant("expected on 10 April 2026")).toBe("2026-04-10");
    expect(lastDayMeant("scheduled for 2026-04-10")).toBe("2026-04-10");
    expect(lastDayMeant("launch expected in Q4 2026")).toBe("2026-12-31");
    expect(lastDayMeant("fully operational since 10 April 2026")).toBeUndefined();
  });

  it("warns on a passed announcement only once its date has passed (the old EES wording, issue 16 defect 4)", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    materializeFixture(tmp, "invalid/statement_outdated");
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false };
    const before = await buildContent({ ...options, today: "2026-03-01" });
    expect(before.issues.filter((i) => i.code === "statement_outdated")).toEqual([]);
    const after = await buildContent({ ...options, today: "2026-11-23" });
    expect(after.issues.filter((i) => i.code === "statement_outdated").map((i) => i.message)).toEqual([
      '"planned for April 2026" announces a date that has passed (today 2026-11-23): state what happened, with its source',
    ]);
    expect(after.ok).toBe(true);
  });

  it("warns on a node past its review_by", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    materializeFixture(tmp, "invalid/review_overdue");
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false };
    expect((await buildContent({ ...options, today: "2026-01-15" })).issues.filter((i) => i.code === "review_overdue")).toEqual([]);
    expect((await buildContent({ ...options, today: "2026-02-02" })).issues.filter((i) => i.code === "review_overdue")).toHaveLength(1);
  });

  it("an impossible review date is an error, not silently ignored", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    materializeFixture(tmp, "invalid/review_overdue");
    const path = join(contentDir, "travel", "trv-start.md");
    writeFileSync(path, readFileSync(path, "utf8").replace(/review_by: .*/, "review_by: 2026-02-30"));
    const result = await buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false, today: "2026-11-23" });
    expect(result.ok).toBe(false);
    expect(result.issues.filter((i) => i.code === "date_invalid").map((i) => i.pointer)).toEqual(["review_by"]);
  });
});
