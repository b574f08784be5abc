/**
 * The change feed from authored dates: basic → basic-v2 adds one node, updates one and deprecates
 * one. Entries are stable (same content → same entries) and sorted by (at, id).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDiagnostics } from "../../build/diagnostics.ts";
import { buildContent } from "../../build/index.ts";
import { buildChangelog, compareEntries, lintDelta } from "../../build/stages/delta.ts";
import type { ChangelogEntry } from "../../runtime/shared/schema/artifacts.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

async function changelogOf(...overlays: string[]): Promise<ChangelogEntry[]> {
  const tmp = createTempDir();
  const result = await buildContent({
    contentDir: materializeFixture(tmp, ...overlays),
    outDir: join(tmp, "dist"),
    rootDir: tmp,
    write: false,
  });
  expect(result.ok).toBe(true);
  return JSON.parse(result.files!.get("changelog.json")!).entries;
}

describe("delta", () => {
  it("derives added/updated entries from created/updated, normalised to UTC date-times", async () => {
    const entries = await changelogOf();
    expect(entries.map((e) => `${e.at} ${e.id}`)).toEqual([
      "2026-10-01T00:00:00Z traversal/nav-start/added",
      "2026-10-02T00:00:00Z traversal/nav-lean/added",
      "2026-11-01T00:00:00Z travel/trv-start/added",
      "2026-11-02T00:00:00Z travel/trv-compensation/added",
      "2026-11-03T00:00:00Z travel/trv-care/added",
      "2026-11-04T00:00:00Z travel/trv-claims/added",
      "2026-11-05T10:00:00Z travel/trv-compensation/updated",
    ]);
    expect(entries[0]).toMatchObject({ node_id: "nav-start", vertical: "traversal", change: "added", title: "Start at the free index" });
    expect(entries[0]!.version).toMatch(/^[0-9a-f]{16}$/);
  });

  it("v1 → v2: one add, one update, one deprecation; earlier entries unchanged apart from versions", async () => {
    const v1 = await changelogOf();
    const v2 = await changelogOf("basic-v2");
    const v1Keys = new Set(v1.map((e) => `${e.at} ${e.id}`));
    const added = v2.filter((e) => !v1Keys.has(`${e.at} ${e.id}`));
    expect(added.map((e) => `${e.at} ${e.id}`)).toEqual([
      "2026-11-20T09:00:00Z travel/trv-compensation/updated",
      "2026-11-21T00:00:00Z travel/trv-claims/deprecated",
      "2026-11-21T00:00:00Z travel/trv-claims/updated",
      "2026-11-21T12:00:00Z travel/trv-deadlines/added",
    ]);
    expect(v2.find((e) => e.change === "deprecated")).toMatchObject({ node_id: "trv-claims", replaced_by: "trv-deadlines" });
    // The superseded `updated` entry of trv-compensation is replaced, never duplicated.
    expect(v2.filter((e) => e.id === "travel/trv-compensation/updated")).toHaveLength(1);
    // Every new entry sorts after the last v1 entry, so a client's cursor sees all of them.
    for (const e of added) expect(compareEntries(e, v1.at(-1)!)).toBeGreaterThan(0);
  });

  it("is stable: the same content yields the same entries in the same order", async () => {
    expect(await changelogOf("basic-v2")).toEqual(await changelogOf("basic-v2"));
  });

  it("sorts by time, then by id", () => {
    const e = (at: string, id: string) => ({ at, id });
    expect([e("2026-01-02T00:00:00Z", "a"), e("2026-01-01T00:00:00Z", "b"), e("2026-01-01T00:00:00Z", "a")].sort(compareEntries)).toEqual([
      e("2026-01-01T00:00:00Z", "a"),
      e("2026-01-01T00:00:00Z", "b"),
      e("2026-01-02T00:00:00Z", "a"),
    ]);
  });

  it("lint: no previous build, no warnings; empty graphs, empty feed", () => {
    const diagnostics = createDiagnostics();
    lintDelta([], buildChangelog([]), undefined, diagnostics);
    expect(diagnostics.issues).toEqual([]);
  });

  it("lint: bumping updated after an edit (basic → basic-v2) gives no warning", async () => {
    const tmp = createTempDir();
    const options = { contentDir: materializeFixture(tmp), outDir: join(tmp, "dist"), rootDir: tmp };
    expect((await buildContent(options)).ok).toBe(true);
    materializeFixture(tmp, "basic-v2");
    const v2 = await buildContent(options);
    expect(v2.issues).toEqual([]);
  });
});
