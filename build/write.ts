/**
 * Atomic output. A build is written into a fresh folder `<outDir>/.builds/tmp-*`, renamed to
 * `<outDir>/.builds/<build_id>` when complete, and published by renaming a new symlink over
 * `<outDir>/data`. rename(2) replaces the link in one step, so a running server sees either the
 * old build or the new one, never a half-written or missing folder (two directory renames would
 * leave a moment with no `data` at all). Nothing is touched until the new build is complete,
 * so a failed build leaves the previous one intact. An unchanged build id publishes nothing.
 */
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { sha256 } from "./digest.ts";

export const BUILDS_DIR = ".builds";
/**
 * A folder younger than this may belong to a concurrent build (about to be published), so cleanup
 * leaves it; an older one is a crashed build's leftover or a superseded build.
 */
const STALE_MS = 10 * 60 * 1000;
/**
 * Published builds kept whatever their age: a server still loading or serving an earlier one (it
 * follows `data` within RELEASE_POLL_MS) never finds its folder gone.
 */
const KEEP_BUILDS = 3;

export interface StagedOutput {
  /** The temp folder being written. */
  readonly dir: string;
  /** Writes a file (path relative to the data folder) and returns its sha256. */
  write(path: string, text: string): string;
  /**
   * Hard-links the previous build's file when the previous manifest lists the same digest for
   * the same path: a one-node rebuild then writes a handful of files, not 40,000.
   */
  reuse(path: string, digest: string): boolean;
  /**
   * Publishes the staged build as `<outDir>/data`; `changed` is false when it was already live.
   * `signingKid` is the key the staged manifest is signed with (see `_moveUnlessExists`).
   */
  commit(buildId: string, signingKid?: string): { changed: boolean; dir: string };
  /** Removes the staged folder; the published build stays as it was. */
  abort(): void;
}

/** The published build to reuse files from: its folder and its manifest's file digests. */
export interface PreviousOutput {
  dir: string;
  files: Readonly<Record<string, string>>;
}

/** @example const out = createStagedOutput("dist"); out.write("catalog.json", text); out.commit(id); */
export function createStagedOutput(outDir: string, previous?: PreviousOutput): StagedOutput {
  const buildsDir = join(outDir, BUILDS_DIR);
  mkdirSync(buildsDir, { recursive: true });
  const dir = mkdtempSync(join(buildsDir, "tmp-"));
  const made = new Set<string>([dir]);
  const linked = new Set<string>();
  const prepare = (path: string) => {
    const target = join(dir, path);
    const parent = dirname(target);
    if (!made.has(parent)) mkdirSync(parent, { recursive: true }), made.add(parent);
    return target;
  };
  return {
    dir,
    write(path, text) {
      const target = prepare(path);
      // Never write through a hard link: that would change the previous, published build.
      if (linked.delete(path)) rmSync(target);
      writeFileSync(target, text);
      return sha256(text);
    },
    reuse(path, digest) {
      if (!previous || previous.files[path] !== digest) return false;
      try {
        linkSync(join(previous.dir, path), prepare(path));
        linked.add(path);
        return true;
      } catch {
        return false;
      }
    },
    commit(buildId, signingKid) {
      const final = join(buildsDir, buildId);
      _moveUnlessExists(dir, final, signingKid);
      const dataDir = join(outDir, "data");
      const target = relative(outDir, final);
      const previous = _linkTarget(dataDir);
      if (previous === target) return { changed: false, dir: final };
      _publish(outDir, dataDir, target);
      _cleanup(buildsDir, new Set([buildId, previous ? relative(BUILDS_DIR, previous) : ""]));
      return { changed: true, dir: final };
    },
    abort() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// --- Internal helpers ---

function _signingKid(buildDir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(buildDir, "manifest.json"), "utf8")) as { signing?: { kid?: string } }).signing?.kid;
  } catch {
    return undefined;
  }
}

function _linkTarget(dataDir: string): string | undefined {
  try {
    return lstatSync(dataDir).isSymbolicLink() ? readlinkSync(dataDir) : undefined;
  } catch {
    return undefined;
  }
}

function _publish(outDir: string, dataDir: string, target: string): void {
  // A real folder from an older layout cannot be replaced by a link in one step: move it aside.
  if (existsSync(dataDir) && !lstatSync(dataDir).isSymbolicLink()) {
    renameSync(dataDir, mkdtempSync(join(outDir, BUILDS_DIR, "legacy-")) + "/data");
  }
  const link = join(outDir, `.data-link-${process.pid}-${Date.now()}`);
  symlinkSync(target, link, "dir");
  renameSync(link, dataDir);
}

/**
 * The same build id means the same bytes: if another build already published it, keep that one,
 * unless it was signed by another key (a development build of the same content, then built with
 * the release key): its manifest is replaced, so the release never carries the development key's
 * signatures. The files are the same bytes, so a server reading the folder sees no difference.
 */
function _moveUnlessExists(dir: string, final: string, signingKid?: string): void {
  try {
    if (!existsSync(final)) {
      renameSync(dir, final);
      return;
    }
    if (signingKid !== undefined && _signingKid(final) !== signingKid) {
      const manifest = join(final, "manifest.json");
      const swap = `${manifest}.${process.pid}.tmp`;
      writeFileSync(swap, readFileSync(join(dir, "manifest.json")));
      renameSync(swap, manifest);
    }
  } catch (error) {
    if (!existsSync(final)) throw error;
  }
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Keeps the new and the previous build (a reader may still be inside it), the newest KEEP_BUILDS
 * and anything recent; removes the rest.
 */
function _cleanup(buildsDir: string, keep: ReadonlySet<string>): void {
  const entries: { name: string; path: string; ctimeMs: number }[] = [];
  for (const name of readdirSync(buildsDir)) {
    const path = join(buildsDir, name);
    try {
      // ctime moves on rename, so a build another process just renamed into place counts as recent.
      entries.push({ name, path, ctimeMs: statSync(path).ctimeMs });
    } catch {
      // Removed concurrently by another build.
    }
  }
  const newest = new Set(
    entries
      .filter((e) => !e.name.startsWith("tmp-") && !e.name.startsWith("legacy-"))
      .sort((a, b) => b.ctimeMs - a.ctimeMs)
      .slice(0, KEEP_BUILDS)
      .map((e) => e.name),
  );
  for (const { name, path, ctimeMs } of entries) {
    if (keep.has(name) || newest.has(name) || Date.now() - ctimeMs < STALE_MS) continue;
    rmSync(path, { recursive: true, force: true });
  }
}
