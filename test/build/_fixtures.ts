/**
 * Fixture content for build tests: `basic/` plus an optional overlay (see
 * test/fixtures/content/README.md), materialised into a fresh temp folder per call.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const FIXTURES_DIR = fileURLToPath(new URL("../fixtures/content/", import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A temp folder for one test; the caller removes it (or leaves it to the OS temp cleaner). */
export function createTempDir(prefix = "vkr-build-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * Copies `basic/` and then each overlay (e.g. `basic-v2`, `invalid/rule_cycle`) into `<tmp>/content`.
 * @returns the content folder
 */
export function materializeFixture(tmp: string, ...overlays: string[]): string {
  const content = join(tmp, "content");
  rmSync(content, { recursive: true, force: true });
  cpSync(join(FIXTURES_DIR, "basic"), content, { recursive: true });
  for (const overlay of overlays) {
    const dir = join(FIXTURES_DIR, overlay);
    cpSync(dir, content, { recursive: true, filter: (src) => !src.endsWith(".delete") });
    const deletions = join(dir, ".delete");
    if (existsSync(deletions)) {
      for (const rel of readFileSync(deletions, "utf8").split("\n").filter(Boolean)) rmSync(join(content, rel), { recursive: true });
    }
  }
  return content;
}
