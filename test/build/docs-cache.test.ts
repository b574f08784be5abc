/**
 * build/browse/docs-cache.ts: the rendered doc pages kept between builds. A hit must give the
 * bytes a fresh render gives, and a change to anything a page depends on (its markdown, the list
 * of pages its links point at, the renderer's code) must miss. Each case poisons the entries a
 * first render left, so a stale entry that is read shows in the output.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DocsCache } from "../../build/browse/docs-cache.ts";
import { rendererCode } from "../../build/browse/docs-cache.ts";
import { renderDocPages } from "../../build/browse/render-docs.ts";
import { createTempDir } from "./_fixtures.ts";

const CTX = { apiVersion: "test", buildId: "test" };
const POISON = "<p>stale entry</p>";

/** A repository of three pages, a cache folder and a stand-in for the renderer's code. */
function _setup(): { root: string; cache: DocsCache; codeFile: string } {
  const root = createTempDir();
  mkdirSync(join(root, "docs"));
  writeFileSync(join(root, "README.md"), "# Readme\n\nSee [the guide](docs/guide.md#usage).\n");
  writeFileSync(join(root, "docs", "README.md"), "# Guides\n\n- [guide](guide.md)\n");
  writeFileSync(join(root, "docs", "guide.md"), "# Guide\n\n## Usage\n\nRun it.\n");
  const codeFile = join(root, "renderer.js");
  writeFileSync(join(codeFile), "v1");
  return { root, cache: { dir: join(root, ".cache"), code: rendererCode([codeFile]) }, codeFile };
}

function _poison(cache: DocsCache): void {
  for (const name of readdirSync(cache.dir, { recursive: true, encoding: "utf8" }))
    if (name.endsWith(".html")) writeFileSync(join(cache.dir, name), POISON);
}

describe("docs cache", () => {
  it("gives a hit the bytes of a fresh render, and serves the entry it kept", async () => {
    const { root, cache } = _setup();
    const fresh = await renderDocPages(CTX, root, null);
    expect(await renderDocPages(CTX, root, cache)).toEqual(fresh);
    expect(await renderDocPages(CTX, root, cache)).toEqual(fresh);
    expect(readdirSync(join(cache.dir, cache.code.slice(0, 16)))).toHaveLength(3);
    // The cache is read: a poisoned entry shows (what the cases below prove is never served stale).
    _poison(cache);
    expect([...(await renderDocPages(CTX, root, cache)).values()].every((html) => html.includes(POISON))).toBe(true);
  });

  it("misses a page whose markdown changed, and only that page", async () => {
    const { root, cache } = _setup();
    await renderDocPages(CTX, root, cache);
    _poison(cache);
    writeFileSync(join(root, "docs", "guide.md"), "# Guide\n\n## Usage\n\nRun it twice.\n");
    const pages = await renderDocPages(CTX, root, cache);
    expect(pages.get("docs/guide.html")).toContain("Run it twice.");
    expect(pages.get("docs/guide.html")).not.toContain(POISON);
    expect(pages.get("docs/readme.html")).toContain(POISON);
    // The entry of the old text is dropped: the folder keeps one set of pages.
    expect(readdirSync(join(cache.dir, cache.code.slice(0, 16)))).toHaveLength(3);
  });

  it("misses every page when the list of pages changes (their links point at it)", async () => {
    const { root, cache } = _setup();
    await renderDocPages(CTX, root, cache);
    _poison(cache);
    writeFileSync(join(root, "docs", "new.md"), "# New\n");
    const pages = await renderDocPages(CTX, root, cache);
    for (const [file, html] of pages) expect(html, file).not.toContain(POISON);
  });

  it("misses every page when the renderer's code changes", async () => {
    const { root, cache, codeFile } = _setup();
    await renderDocPages(CTX, root, cache);
    _poison(cache);
    writeFileSync(codeFile, "v2");
    const pages = await renderDocPages(CTX, root, { ...cache, code: rendererCode([codeFile]) });
    expect([...pages.values()].some((html) => html.includes(POISON))).toBe(false);
    expect(pages).toEqual(await renderDocPages(CTX, root, null));
  });

  it("keeps the entries of two renderers apart (the sources and the bundled CLI), neither pruning the other's", async () => {
    const { root, cache, codeFile } = _setup();
    const other = { ...cache, code: rendererCode([codeFile, codeFile]) };
    await renderDocPages(CTX, root, cache);
    await renderDocPages(CTX, root, other);
    _poison(cache);
    expect([...(await renderDocPages(CTX, root, cache)).values()].every((html) => html.includes(POISON))).toBe(true);
  });

  it("counts an unreadable code file as absent, never as unchanged", () => {
    const { root, codeFile } = _setup();
    expect(rendererCode([codeFile])).not.toBe(rendererCode([join(root, "missing.js")]));
  });
});
