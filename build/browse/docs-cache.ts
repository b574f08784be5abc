/**
 * Rendered doc pages kept on disk between builds (`.cache/docs-html/` in the repository, ignored
 * by git). Every build renders the same README and docs/, about a second of CPU of remark and
 * micromark each time, while the node pages around them change; the cache keeps the article HTML
 * of each page (render-docs.ts wraps it in the build's own page frame every time).
 *
 * An entry is named by the sha256 of everything its bytes depend on: the page's markdown, its
 * path, the list of served pages (its links point at them), and the renderer's code (see
 * `rendererCode`). Any change is a new name, so a stale entry is never read; entries are kept in a
 * folder per renderer code, and those this render did not use are deleted, so each folder holds
 * one set of pages (another renderer's folder goes once unwritten for a week). Entries are written to a temp
 * name and renamed, so two builds at once read a whole entry or none. The folder is safe to
 * delete at any time (`rm -rf .cache`): the next build renders again. A read-only checkout (an
 * installed release) just renders every time.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface DocsCache {
  /** The folder of entries. */
  dir: string;
  /** Digest of the renderer's code (`rendererCode`): part of every entry's name. */
  code: string;
}

/** A temp file older than this was left by a build that died while writing it. */
const ABANDONED_TEMP_MS = 10 * 60_000;
/** Another renderer's folder not written to for this long is of code that is gone (or unused: it renders again). */
const ABANDONED_CODE_MS = 7 * 24 * 3600_000;

/**
 * Digest of the files that decide a rendered page's bytes. A file that cannot be read counts as
 * absent (a release has no package-lock.json), never as unchanged.
 * @example rendererCode(["build/browse/doc-markdown.ts", "build/docs/slug.ts", "package-lock.json"])
 */
export function rendererCode(files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file}\0`);
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update("\0absent");
    }
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * Renders what is missing (in order, so a cold build costs what it did), reads the rest; then drops
 * the entries nobody used. `inputs` is everything an entry depends on besides the code.
 */
export async function withDocsCache<T extends { inputs: string }>(
  cache: DocsCache | null,
  items: readonly T[],
  render: (item: T) => Promise<string>,
): Promise<string[]> {
  if (cache === null) return Promise.all(items.map(render));
  // A folder per renderer: the sources (tsx) and the bundled CLI render alike but are different
  // code, and pruning each other's entries would make every other build render again.
  const dir = join(cache.dir, cache.code.slice(0, 16));
  const out: string[] = [];
  const used = new Set<string>();
  for (const item of items) {
    const name = `${createHash("sha256").update(`${cache.code}\0${item.inputs}`).digest("hex")}.html`;
    used.add(name);
    out.push(_read(dir, name) ?? _write(dir, name, await render(item)));
  }
  _prune(dir, used);
  _pruneOtherCode(cache);
  return out;
}

// --- Internal helpers ---

function _pruneOtherCode(cache: DocsCache): void {
  try {
    for (const name of readdirSync(cache.dir)) {
      const path = join(cache.dir, name);
      if (name !== cache.code.slice(0, 16) && Date.now() - statSync(path).mtimeMs > ABANDONED_CODE_MS)
        rmSync(path, { recursive: true, force: true });
    }
  } catch {
    // Gone already, or not ours to delete: the next build tries again.
  }
}

function _read(dir: string, name: string): string | null {
  try {
    return readFileSync(join(dir, name), "utf8");
  } catch {
    return null;
  }
}

/** Temp name, then rename: a reader sees the whole entry or none. A failed write only costs the next build a render. */
function _write(dir: string, name: string, html: string): string {
  const temp = join(dir, `.${name}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, html);
    renameSync(temp, join(dir, name));
  } catch {
    rmSync(temp, { force: true });
  }
  return html;
}

/** Keeps one set of pages: entries of older docs or older code go; another build's temp file stays unless abandoned. */
function _prune(dir: string, used: ReadonlySet<string>): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (used.has(name)) continue;
    const path = join(dir, name);
    try {
      if (name.endsWith(".tmp") && Date.now() - statSync(path).mtimeMs < ABANDONED_TEMP_MS) continue;
      rmSync(path, { force: true });
    } catch {
      // Gone already (another build pruned it): nothing to do.
    }
  }
}
