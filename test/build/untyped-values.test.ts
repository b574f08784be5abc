/** build/stages/untyped-values.ts: which figures prose states, when they count as typed, and the release rule. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContent } from "../../build/index.ts";
import { statedValues, typedKeys } from "../../build/stages/untyped-values.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

describe("typed-value lint", () => {
  it("reads amounts, percentages, durations, dates and well-known paths as values", () => {
    expect(statedValues("EUR 400 within 7 days, or 50 % after 3-business-day notice").map((v) => v.key)).toEqual([
      "amount:400",
      "duration:7:days",
      "percent:50",
      "duration:3:business_days",
    ]);
    expect(statedValues("capped at 1,519 SDR; fines up to EUR 35 m").map((v) => v.key)).toEqual(["amount:1519", "amount:35000000"]);
    expect(statedValues("from 2 Dec 2027 (Annex III) and 2028-08-02").map((v) => v.key)).toEqual(["date:2027-12-02", "date:2028-08-02"]);
    expect(statedValues("fetch `https://<host>/.well-known/agent-card.json`").map((v) => v.key)).toEqual([
      "path:/.well-known/agent-card.json",
    ]);
    expect(statedValues("Art. 7(1)(a) and Regulation 2024/1689")).toEqual([]);
  });

  it("a typed value answers to the same key, a URL also to its path", () => {
    expect(typedKeys({ type: "amount", amount: 400, currency: "EUR" })).toEqual(["amount:400"]);
    expect(typedKeys({ type: "duration", amount: 3, unit: "business_days" })).toEqual(["duration:3:business_days"]);
    expect(typedKeys({ type: "url", url: "https://peer.example.net/.well-known/agent-card.json" })).toEqual([
      "path:/.well-known/agent-card.json",
    ]);
  });

  it("warns in a dev build and fails a release build; typing the value or listing the phrase clears it", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp, "invalid/value_untyped");
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false };
    const dev = await buildContent(options);
    expect(dev.ok).toBe(true);
    expect(dev.issues.filter((i) => i.code === "value_untyped").map((i) => i.message)).toEqual([
      'outcome "care_due" states "2 hours" with no typed value carrying it: add it under values.care_due, or list the phrase in prose_values',
    ]);
    const release = await buildContent({ ...options, release: true });
    expect(release.ok).toBe(false);
    expect(release.issues.find((i) => i.code === "value_untyped")!.fatal).toBe(true);

    const { readFileSync, writeFileSync } = await import("node:fs");
    const path = join(contentDir, "travel", "trv-care.md");
    const source = readFileSync(path, "utf8");
    writeFileSync(
      path,
      source.replace("rules:\n", 'values:\n  care_due: [{ type: duration, amount: 2, unit: hours, note: "departure delay" }]\nrules:\n'),
    );
    expect((await buildContent(options)).issues.filter((i) => i.code === "value_untyped")).toEqual([]);
    writeFileSync(path, source.replace("---\n\n## Logic", 'prose_values: ["from a delay of 2 hours"]\n---\n\n## Logic'));
    expect((await buildContent(options)).issues.filter((i) => i.code === "value_untyped")).toEqual([]);
  });
});
