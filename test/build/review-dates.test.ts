/** build/stages/review-dates.ts: which announced dates count as passed, and when the build warns. */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContent } from "../../build/index.ts";
import { lastDayMeant } from "../../build/stages/review-dates.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

describe("review dates", () => {
  it("reads the last day an announcement can mean", () => {
    expect(lastDayMeant("full operation was planned for April 2026")).toBe("2026-04-30");
    expect(lastDayMeant("expected on 10 April 2026")).toBe("2026-04-10");
    expect(lastDayMeant("scheduled for 2026-04-10")).toBe("2026-04-10");
    expect(lastDayMeant("launch expected in Q4 2026")).toBe("2026-12-31");
    expect(lastDayMeant("fully operational since 10 April 2026")).toBeUndefined();
    // The ETIAS wording the audit found stale, in its two forms, and other spans people write.
    expect(lastDayMeant("(expected last quarter of\n  2026; not live as of May 2026)")).toBe("2026-12-31");
    expect(lastDayMeant("the EU has announced a start in the last quarter of 2026")).toBe("2026-12-31");
    expect(lastDayMeant("set to start in the first half of 2027")).toBe("2027-06-30");
    expect(lastDayMeant("scheduled for H2 2027")).toBe("2027-12-31");
    expect(lastDayMeant("due by the end of 2027")).toBe("2027-12-31");
    // An announcement made on a date, or an event that happened, is not an announced date.
    expect(lastDayMeant("Commission fee adjustment announced 18 Jul 2025")).toBeUndefined();
    expect(lastDayMeant("Google announced A2A in April 2025")).toBeUndefined();
  });

  it("a release build fails on a passed announcement only once its date has passed (the old EES wording)", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    materializeFixture(tmp, "invalid/statement_outdated");
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false, release: true };
    const before = await buildContent({ ...options, today: "2026-03-01" });
    expect(before.issues.filter((i) => i.code === "statement_outdated")).toEqual([]);
    const after = await buildContent({ ...options, today: "2026-11-23" });
    expect(after.issues.filter((i) => i.code === "statement_outdated").map((i) => i.message)).toEqual([
      '"planned for April 2026" announces a date that has passed (today 2026-11-23): state what happened, with its source (a release build refuses it)',
    ]);
    expect(after.issues.find((i) => i.code === "statement_outdated")!.fatal).toBe(true);
    expect(after.ok).toBe(false);
  });

  it("a dev build reports a passed announcement as a warning and still builds, so a server keeps serving while the node is fixed", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    materializeFixture(tmp, "invalid/statement_outdated");
    const result = await buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false, today: "2026-11-23" });
    const issue = result.issues.find((i) => i.code === "statement_outdated")!;
    expect(issue.fatal).toBe(false);
    expect(issue.message).toContain("a release build (--release) will refuse it");
    expect(result.ok).toBe(true);
  });

  it("warns when review_by falls after a date the node announces, until the announcement has passed", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    materializeFixture(tmp, "invalid/review_after_announcement");
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false };
    const before = await buildContent({ ...options, today: "2098-01-15" });
    expect(before.ok).toBe(true);
    expect(before.issues.filter((i) => i.code === "review_after_announcement").map((i) => i.message)).toEqual([
      '"expected in the last quarter of 2098" names 2098-12-31, but review_by is 2099-06-01: set review_by on or before 2098-12-31 so the node is checked when the event is due',
    ]);
    // Once the date has passed, the statement is stale: an error, and no longer this warning.
    const after = await buildContent({ ...options, today: "2099-01-02", release: true });
    expect(after.issues.map((i) => i.code)).toContain("statement_outdated");
    expect(after.issues.map((i) => i.code)).not.toContain("review_after_announcement");
    expect(after.ok).toBe(false);
    // With review_by before the announced date there is nothing to warn about.
    const path = join(contentDir, "travel", "trv-start.md");
    writeFileSync(path, readFileSync(path, "utf8").replace("review_by: 2099-06-01", "review_by: 2098-12-01"));
    expect((await buildContent({ ...options, today: "2098-01-15" })).issues.filter((i) => i.code === "review_after_announcement")).toEqual(
      [],
    );
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

  it("a release build refuses a node changed after its last review, unless the change is marked editorial for that updated", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    materializeFixture(tmp, "invalid/review_behind_change");
    const path = join(contentDir, "travel", "trv-start.md");
    const base = readFileSync(path, "utf8");
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false, today: "2026-11-23" };
    const behind = async (release: boolean) =>
      (await buildContent({ ...options, release })).issues.filter((i) => i.code === "review_behind_change");

    // Changed on 1 Nov, reviewed on 15 Oct: a warning in dev, refused by a release build.
    expect((await behind(false)).map((i) => i.fatal)).toEqual([false]);
    const refused = await buildContent({ ...options, release: true });
    expect(refused.ok).toBe(false);
    expect(refused.issues.find((i) => i.code === "review_behind_change")?.message).toContain("set editorial: 2026-11-01");

    // The review done: reviewed on the day of the change (a date covers its whole day).
    writeFileSync(
      path,
      base.replace("reviewed: 2026-10-15", "reviewed: 2026-11-01").replace("updated: 2026-11-01", "updated: 2026-11-01T16:00:00Z"),
    );
    expect(await behind(true)).toEqual([]);

    // Marked editorial for exactly this updated: accepted; the same marker after a later change is not.
    writeFileSync(path, base.replace("reviewed: 2026-10-15", "reviewed: 2026-10-15\neditorial: 2026-11-01"));
    expect(await behind(true)).toEqual([]);
    expect((await buildContent({ ...options, release: true })).ok).toBe(true);
    writeFileSync(
      path,
      base
        .replace("reviewed: 2026-10-15", "reviewed: 2026-10-15\neditorial: 2026-11-01")
        .replace("updated: 2026-11-01", "updated: 2026-11-02"),
    );
    const stale = await behind(true);
    expect(stale.map((i) => i.fatal)).toEqual([true]);
    expect(stale[0]!.message).toContain("editorial: 2026-11-01 covers an earlier change");
  });
});
