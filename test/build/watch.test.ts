/**
 * Watch mode (`npm run dev`) keeps rebuilding after atomic saves. vim, JetBrains
 * and `sed -i` write a temp file and rename it over the original; `fs.watch(recursive)` on
 * Node 20 loses the file after the first such save, so the second save went unnoticed.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type BuildResult, createBuildCache } from "../../build/index.ts";
import { watchContent } from "../../build/watch.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

let stop: (() => void | Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** Writes beside the file and renames over it, as editors that save atomically do. */
function saveAtomically(file: string, text: string): void {
  const temp = `${file}.tmp-${Date.now()}`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

describe("watchContent", () => {
  it("rebuilds after each of several rename-saves of the same file", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    const results: BuildResult[] = [];
    let notify: () => void = () => {};
    const next = (count: number, ms = 8_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no build #${count} within ${ms} ms (have ${results.length})`)), ms);
        notify = () => {
          if (results.length >= count) clearTimeout(timer), resolve();
        };
        notify();
      });
    stop = watchContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp, cache: createBuildCache() }, (result) => {
      results.push(result);
      notify();
    });
    await next(1);
    const file = join(contentDir, "travel", "trv-care.md");
    const original = readFileSync(file, "utf8");
    expect(original).toMatch(/^title: .+$/m);

    for (const [i, title] of ["Care, first save", "Care, second save", "Care, third save"].entries()) {
      // Let the watcher settle on the replaced file before the next save (a person saves seconds apart).
      await new Promise((r) => setTimeout(r, 400));
      saveAtomically(file, original.replace(/^title: .+$/m, `title: ${title}`));
      await next(i + 2);
      const node = JSON.parse(readFileSync(join(tmp, "dist", "data", "verticals", "travel", "nodes", "trv-care.json"), "utf8"));
      expect(node.node.title).toBe(title);
    }
    expect(results.every((r) => r.ok)).toBe(true);
  }, 60_000);
});
