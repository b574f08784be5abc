/** Stage load: which files are nodes, indexes, catalogue and wrappers; sorted listings. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveBuildConfig } from "../../build/config.ts";
import { loadContent } from "../../build/stages/load.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

describe("load", () => {
  it("classifies files and skips _-, .- and upper-case names", () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    writeFileSync(join(contentDir, "AUTHORING.md"), "# not a node\n");
    writeFileSync(join(contentDir, "travel", "README.md"), "# not a node\n");
    writeFileSync(join(contentDir, "travel", "_draft.md"), "# not a node\n");
    mkdirSync(join(contentDir, "_drafts"));
    writeFileSync(join(contentDir, "_drafts", "x.md"), "# not a node\n");
    const loaded = loadContent(resolveBuildConfig({ contentDir, rootDir: tmp }));
    expect(loaded.verticals).toEqual(["travel", "traversal"]);
    expect(loaded.nodes.map((n) => `${n.vertical}/${n.name}`)).toEqual([
      "travel/trv-care",
      "travel/trv-claims",
      "travel/trv-compensation",
      "travel/trv-start",
      "traversal/nav-lean",
      "traversal/nav-start",
    ]);
    expect(loaded.nodes[0]!.file).toBe("content/travel/trv-care.md");
    expect(loaded.indexes.map((f) => f.vertical)).toEqual(["travel", "traversal"]);
    expect(loaded.catalog.map((f) => f.name)).toEqual(["cohorts", "limits", "status", "verticals"]);
    expect(loaded.wrappers.map((f) => f.name)).toHaveLength(5);
  });

  it("throws a clear error when the content folder does not exist", () => {
    expect(() => loadContent(resolveBuildConfig({ contentDir: join(createTempDir(), "missing") }))).toThrow(/content folder not found/);
  });
});
