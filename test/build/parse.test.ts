/** Stage parse and markdown/layers: frontmatter (YAML 1.2, dates stay strings), H2 sections, lines. */
import { describe, expect, it } from "vitest";
import { createBuildCache } from "../../build/cache.ts";
import { splitBody } from "../../build/markdown/layers.ts";
import type { SourceFile } from "../../build/stages/load.ts";
import { parseSource, readFrontmatter } from "../../build/stages/parse.ts";

const source = (raw: string): SourceFile => ({ kind: "node", path: "/x.md", file: "x.md", vertical: "v", name: "x", raw });

describe("parse", () => {
  it("keeps dates as strings and numbers as numbers", () => {
    expect(readFrontmatter("---\ncreated: 2026-11-01\norder: 2\n---\nbody").data).toEqual({ created: "2026-11-01", order: 2 });
  });

  it("reports invalid YAML with its file line, and a missing frontmatter", () => {
    expect(readFrontmatter("---\nid: x\ntitle: a: b\n---\n").error).toMatchObject({ line: 3 });
    expect(readFrontmatter("## Logic\n").error).toMatchObject({ line: 1, message: expect.stringContaining("missing frontmatter") });
  });

  it("locates frontmatter fields by path, list items included", () => {
    const { parsed } = parseSource(source("---\nid: x\nnext_nodes:\n  - a\n  - b\nfacts:\n  f: Q?\n---\n"));
    expect(parsed.locate(["id"])).toBe(2);
    expect(parsed.locate(["next_nodes", 1])).toBe(5);
    expect(parsed.locate(["facts", "f"])).toBe(7);
    expect(parsed.locate(["facts", "missing"])).toBe(6);
  });

  it("counts tokens per section and caches by file digest", () => {
    const cache = createBuildCache();
    const raw = "---\nid: x\n---\n## Logic\nHello world\n";
    const first = parseSource(source(raw), cache, { tokens: true });
    expect(first.parsed.sectionTokens).toEqual([2]);
    expect(parseSource(source(raw), cache, { tokens: true }).parsed).toBe(first.parsed);
    expect(cache.parsed.size).toBe(1);
  });
});

describe("markdown/layers", () => {
  it("splits by H2, keeps markdown source, ignores headings in code fences, records lines", () => {
    const body = "## Logic\nSome *text*.\n\n```\n## not a heading\n```\n\n## Directive\n### Sub\n- a\n";
    const split = splitBody(body, 10);
    expect(split.sections).toEqual([
      { heading: "Logic", line: 10, text: "Some *text*.\n\n```\n## not a heading\n```" },
      { heading: "Directive", line: 17, text: "### Sub\n- a" },
    ]);
    expect(split.preamble).toBeUndefined();
  });

  it("reports text before the first H2 as a preamble with its line", () => {
    expect(splitBody("\nIntro.\n\n## Logic\nx\n", 5).preamble).toEqual({ line: 6, text: "Intro." });
  });
});
