/**
 * Authoring a node with mistakes. The scaffold bumps the linking node's
 * `updated`; placeholders are warnings in a dev build and errors in a release build; unknown
 * node ids and facts get a "did you mean"; `updated_not_bumped` follows content, not date order;
 * a bad date says which format is expected.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContent, formatIssue } from "../../build/index.ts";
import { scaffoldNode } from "../../build/scaffold/new-node.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

const edit = (file: string, from: string | RegExp, to: string) => {
  const text = readFileSync(file, "utf8");
  const next = text.replace(from, to);
  if (next === text) throw new Error(`fixture edit did not apply to ${file}`);
  writeFileSync(file, next);
};

describe("authoring", () => {
  it("the scaffold moves the linking node's updated to today", () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    const result = scaffoldNode({ contentDir, vertical: "travel", id: "trv-new", now: new Date("2026-11-23T10:00:00Z") });
    const parent = readFileSync(join(contentDir, "travel", `${result.linkedFrom}.md`), "utf8");
    expect(parent).toMatch(/^updated: 2026-11-23$/m);
    expect(parent).toMatch(/^next_nodes: \[.*trv-new\]$/m);
  });

  it("TODO and example.org sources: warnings in a dev build, errors in a release build", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    scaffoldNode({ contentDir, vertical: "travel", id: "trv-new", now: new Date("2026-11-23T10:00:00Z") });
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false };

    const dev = await buildContent(options);
    const devIssues = dev.issues.filter((i) => i.code === "placeholder_content");
    expect(dev.ok, dev.issues.map(formatIssue).join("\n")).toBe(true);
    expect(devIssues.map((i) => i.pointer ?? "TODO").sort()).toEqual(["TODO", "sources[0].url"]);
    expect(devIssues.every((i) => !i.fatal)).toBe(true);

    const release = await buildContent({ ...options, release: true });
    expect(release.ok).toBe(false);
    const fatal = release.issues.filter((i) => i.code === "placeholder_content");
    expect(fatal).toHaveLength(2);
    expect(fatal.every((i) => i.fatal && i.file === "content/travel/trv-new.md")).toBe(true);
    expect(fatal.find((i) => i.pointer === "sources[0].url")!.message).toContain("https://example.org/TODO-source");
  });

  it("unknown node ids and facts: did you mean", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    edit(join(contentDir, "travel", "trv-care.md"), "next_nodes: [trv-claims]", "next_nodes: [trv-clams]");
    const start = join(contentDir, "travel", "trv-start.md");
    const fact = /^ {2}([a-z0-9_]+):/m.exec(readFileSync(start, "utf8").split("facts:")[1]!)![1]!;
    edit(start, new RegExp(`(when:[\\s\\S]*?)\\b${fact}\\b`), `$1${fact.slice(0, -1)}`);
    const result = await buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false });
    const dangling = result.issues.find((i) => i.code === "link_dangling");
    expect(dangling?.message).toBe('unknown node "trv-clams"; did you mean "trv-claims"?');
    const unknown = result.issues.find((i) => i.code === "rule_unknown_name");
    expect(unknown?.message, result.issues.map(formatIssue).join("\n")).toContain(`did you mean "${fact}"?`);
  });

  it("a bad date explains the format", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    edit(join(contentDir, "travel", "trv-care.md"), "updated: 2026-11-03", "updated: 03/11/2026");
    const result = await buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false });
    const issue = result.issues.find((i) => i.pointer === "updated");
    expect(issue?.message).toMatch(/YYYY-MM-DD/);
  });

  it("draft: true is built in dev and kept out of a release build, links to it included", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    const care = join(contentDir, "travel", "trv-care.md");
    const draft = readFileSync(care, "utf8")
      .replace("id: trv-care", "id: trv-draft")
      .replace("order: 3", "order: 40")
      .replace("next_nodes: [trv-claims]", "next_nodes: []")
      .replace("status: active", "status: active\ndraft: true");
    writeFileSync(join(contentDir, "travel", "trv-draft.md"), draft);
    edit(care, "next_nodes: [trv-claims]", "next_nodes: [trv-claims, trv-draft]");
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false };
    const read = (r: Awaited<ReturnType<typeof buildContent>>, rel: string) => JSON.parse(r.files!.get(rel)!);

    const dev = await buildContent(options);
    expect(dev.ok, dev.issues.map(formatIssue).join("\n")).toBe(true);
    expect(read(dev, "manifest.json").verticals.travel.nodes["trv-draft"]).toBeDefined();

    const release = await buildContent({ ...options, release: true });
    expect(release.ok, release.issues.map(formatIssue).join("\n")).toBe(true);
    expect(read(release, "manifest.json").verticals.travel.nodes["trv-draft"]).toBeUndefined();
    expect([...release.files!.keys()].some((f) => f.includes("trv-draft"))).toBe(false);
    expect(read(release, "verticals/travel/nodes/trv-care.json").next_nodes.map((n: { id: string }) => n.id)).toEqual(["trv-claims"]);
  });

  describe("updated_not_bumped compares content with the previous build", () => {
    const setup = async () => {
      const tmp = createTempDir();
      const contentDir = materializeFixture(tmp);
      const build = (now = new Date("2026-12-01T12:00:00Z")) => buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp, now });
      const file = join(contentDir, "travel", "trv-care.md");
      const original = readFileSync(file, "utf8");
      expect((await build()).ok).toBe(true);
      return { build, file, original };
    };
    const warned = (r: Awaited<ReturnType<typeof buildContent>>) => r.issues.filter((i) => i.code === "updated_not_bumped");

    it("still warns when the body changed and updated did not move", async () => {
      const { build, file } = await setup();
      edit(file, "List the care items owed.", "List the care items owed, with receipts.");
      expect(warned(await build())).toHaveLength(1);
    });

    it("no warning after a revert (content and updated back as they were)", async () => {
      const { build, file, original } = await setup();
      edit(file, "updated: 2026-11-03", "updated: 2026-11-20");
      edit(file, "List the care items owed.", "List the care items owed, with receipts.");
      expect(warned(await build())).toEqual([]);
      writeFileSync(file, original);
      expect(warned(await build())).toEqual([]);
    });

    it("no warning for a second edit on the day updated already names", async () => {
      const { build, file } = await setup();
      const today = new Date("2026-12-01T16:00:00Z");
      edit(file, "updated: 2026-11-03", "updated: 2026-12-01");
      edit(file, "List the care items owed.", "List the care items owed, with receipts.");
      expect(warned(await build(today))).toEqual([]);
      edit(file, "with receipts.", "with receipts and times.");
      expect(warned(await build(today))).toEqual([]);
    });
  });
});
