/**
 * The run's fixture build cache (test/helpers/build-cache.ts) hands every file a copy that is its
 * own: a file that changes its copy (test/cluster/load-release.test.ts empties `data/status.json`)
 * must leave the cached build and every later copy as built.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILD_CACHE_ENV, checkSlot, contentSlot, copyBuild, pruneCache, serverBundleSlot } from "../helpers/build-cache.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { bundleServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";

describe("the run's cache", () => {
  // Bundling takes as long as the hook that does it elsewhere (hookTimeout), when this file is first.
  it("reaches every test worker, and the server bundle is made in it once", { timeout: 120_000 }, () => {
    const cache = process.env[BUILD_CACHE_ENV];
    expect(cache).toBeTruthy();
    expect(existsSync(cache!)).toBe(true);
    expect(bundleServer()).toBe(join(serverBundleSlot(cache!), "index.mjs"));
    expect(existsSync(bundleServer())).toBe(true);
  });
});

describe("the cache kept between runs", () => {
  it("keys a build by every input: one changed byte of content is another slot, the same bytes the same one", () => {
    const content = writeFixtureContent();
    const cache = mkdtempSync(join(tmpdir(), "vkr-cache-"));
    const before = contentSlot(content, cache);
    const file = join(content, "travel", "trv-m2.md");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("title:", "title: x"));
    expect(contentSlot(content, cache)).not.toBe(before);
    writeFileSync(file, text);
    expect(contentSlot(content, cache)).toBe(before);
  });

  it("keys a checking build's answer by every input and by its question (options, day)", () => {
    const content = writeFixtureContent();
    const cache = mkdtempSync(join(tmpdir(), "vkr-cache-"));
    const question = JSON.stringify({ release: true, today: "2026-11-29" });
    const before = checkSlot(content, cache, question);
    expect(checkSlot(content, cache, JSON.stringify({ release: false, today: "2026-11-29" }))).not.toBe(before);
    expect(checkSlot(content, cache, JSON.stringify({ release: true, today: "2026-11-30" }))).not.toBe(before);
    const file = join(content, "travel", "trv-m2.md");
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.replace("title:", "title: x"));
    expect(checkSlot(content, cache, question)).not.toBe(before);
    writeFileSync(file, text);
    expect(checkSlot(content, cache, question)).toBe(before);
  });

  it("prunes what no run used for days, and keeps what a run used", () => {
    const cache = mkdtempSync(join(tmpdir(), "vkr-cache-"));
    mkdirSync(join(cache, "build-old"));
    mkdirSync(join(cache, "build-new"));
    const now = Date.now();
    const fourDaysAgo = new Date(now - 4 * 24 * 3600 * 1000);
    utimesSync(join(cache, "build-old"), fourDaysAgo, fourDaysAgo);
    pruneCache(cache, now);
    expect(existsSync(join(cache, "build-old"))).toBe(false);
    expect(existsSync(join(cache, "build-new"))).toBe(true);
  });
});

describe("copies of a cached build", () => {
  it("keep the build's relative data link inside the copy", () => {
    const slot = mkdtempSync(join(tmpdir(), "vkr-slot-"));
    mkdirSync(join(slot, ".builds", "b1"), { recursive: true });
    writeFileSync(join(slot, ".builds", "b1", "status.json"), '{"ok":true}\n');
    symlinkSync(join(".builds", "b1"), join(slot, "data"), "dir");
    const copy = copyBuild(slot);
    expect(realpathSync(join(copy, "data"))).toBe(realpathSync(join(copy, ".builds", "b1")));
    writeFileSync(join(copy, "data", "status.json"), "{}\n");
    expect(readFileSync(join(slot, "data", "status.json"), "utf8")).toBe('{"ok":true}\n');
  });

  it("of the default fixture: one file's change reaches no other copy", () => {
    const content = writeFixtureContent();
    const first = buildContentTo(content);
    const built = readFileSync(join(first, "data", "status.json"), "utf8");
    expect(JSON.parse(built)).toBeTypeOf("object");
    expect(realpathSync(join(first, "data")).startsWith(realpathSync(first))).toBe(true);
    writeFileSync(join(first, "data", "status.json"), "{}\n");
    expect(readFileSync(join(buildContentTo(content), "data", "status.json"), "utf8")).toBe(built);
  });
});
