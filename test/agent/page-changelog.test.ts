/** The pure parts of the change feed: paging by position, `since` parsing and signed cursors. */
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../../runtime/domain/delta/cursor.ts";
import { pageChangelog, parseSince } from "../../runtime/domain/delta/page-changelog.ts";
import type { ChangelogEntry } from "../../runtime/shared/schema/artifacts.ts";

const entry = (at: string, vertical: string, node: string): ChangelogEntry => ({
  id: `${vertical}/${node}/added`,
  node_id: node,
  vertical,
  change: "added",
  at,
  version: "v",
  title: node,
});
const LOG = [
  entry("2026-10-01T00:00:00Z", "a", "n1"),
  entry("2026-10-01T00:00:00Z", "b", "n2"),
  entry("2026-10-02T00:00:00Z", "a", "n3"),
  entry("2026-10-02T00:00:00Z", "a", "n4"),
  entry("2026-10-03T00:00:00Z", "b", "n5"),
];
const BOTH = new Set(["a", "b"]);
const ids = (entries: ChangelogEntry[]) => entries.map((e) => e.node_id);

describe("pageChangelog", () => {
  it("starts strictly after `since` and after the cursor position, whichever is later", () => {
    expect(
      ids(pageChangelog(LOG, { sinceMs: Date.parse("2026-10-01T00:00:00Z"), after: null, verticals: BOTH, limit: 10 }).entries),
    ).toEqual(["n3", "n4", "n5"]);
    const after = { at: LOG[2]!.at, id: LOG[2]!.id };
    expect(ids(pageChangelog(LOG, { sinceMs: 0, after, verticals: BOTH, limit: 10 }).entries)).toEqual(["n4", "n5"]);
  });

  it("points between entries that are not in the changelog (a cursor from another build)", () => {
    const after = { at: "2026-10-02T00:00:00Z", id: "a/n35/added" };
    expect(ids(pageChangelog(LOG, { sinceMs: null, after, verticals: BOTH, limit: 10 }).entries)).toEqual(["n4", "n5"]);
  });

  it("skips other verticals and reports whether more remain", () => {
    expect(pageChangelog(LOG, { sinceMs: null, after: null, verticals: new Set(["a"]), limit: 3 })).toMatchObject({ hasMore: false });
    const page = pageChangelog(LOG, { sinceMs: null, after: null, verticals: new Set(["a"]), limit: 2 });
    expect([ids(page.entries), page.hasMore]).toEqual([["n1", "n3"], true]);
  });
});

describe("parseSince", () => {
  it.each([
    ["2026-11-01", Date.UTC(2026, 10, 1)],
    ["2026-11-01T10:00Z", Date.UTC(2026, 10, 1, 10)],
    ["2026-11-01T10:00:00+01:00", Date.UTC(2026, 10, 1, 9)],
    ["2026-11-01T10:00:00.250Z", Date.UTC(2026, 10, 1, 10, 0, 0, 250)],
  ])("%s", (value, ms) => expect(parseSince(value)).toBe(ms));

  it.each(["2026-02-30", "2026-11-01T10:00:00", "1 Nov 2026", "2026-13-01", "", "2026-11-01T25:00:00Z"])("rejects %j", (value) => {
    expect(parseSince(value)).toBeNull();
  });
});

describe("cursors", () => {
  it("round-trip a position and refuse another secret", () => {
    const cursor = encodeCursor({ at: "2026-10-01T00:00:00Z", id: "a/n1/added" }, "secret-one-0123456789");
    expect(decodeCursor(cursor, "secret-one-0123456789")).toEqual({ at: "2026-10-01T00:00:00Z", id: "a/n1/added" });
    expect(() => decodeCursor(cursor, "secret-two-0123456789")).toThrow(expect.objectContaining({ code: "invalid_cursor", status: 400 }));
  });
});
