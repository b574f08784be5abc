/**
 * What a build was made from: a digest of every file under the content folder, the build's
 * own code and the project's docs (rendered into the site), stamped beside the output (`<outDir>/input-stamp.json`) after a good build. `npm
 * start` compares it with the sources on disk to decide whether to build at all. File times are
 * no guide: an unchanged build does not touch its manifest, a checkout resets times, and a
 * revert restores old bytes with a new time.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { PACKAGE_ROOT } from "./package-root.ts";

export interface InputStamp {
  /** sha256 over the sorted paths and bytes of the content folder and the build code. */
  input_digest: string;
  /** The build these inputs produced (the manifest's `build_id`). */
  build_id: string;
  /**
   * Built with `--release` (placeholders refused, drafts left out). Publishing asks for it: the
   * same bytes can come from a dev build only when the content has neither, so a stamp is cheaper
   * than re-linting the output.
   */
  release: boolean;
}

export const INPUT_STAMP_FILE = "input-stamp.json";

/** The code whose changes change the output: the build, the shared schema it emits to, and the rule diagrams its exclusion check proves on. */
// What the build runs: its own code and the runtime's shared layer, the only part it imports
// (test/contract/layers.test.ts).
const BUILD_CODE_DIRS = [
  "build",
  "runtime/shared/schema",
  "runtime/shared/decision-diagram.ts",
  "runtime/shared/tokenize.ts",
  "runtime/shared/signing-keys.ts",
  "runtime/shared/answer-signature.ts",
  "runtime/shared/file-identity.ts",
  "runtime/shared/did-you-mean.ts",
].map((dir) => join(PACKAGE_ROOT, dir));
/**
 * The project's documentation, which the build renders into the site (build/browse/render-docs.ts),
 * including the repository's node reference, read from there whatever content folder is built.
 */
const DOCS_INPUTS = [join(PACKAGE_ROOT, "docs"), join(PACKAGE_ROOT, "README.md"), join(PACKAGE_ROOT, "content", "AUTHORING.md")];

/** @example digestBuildInputs("content") // "3f1c…" */
export function digestBuildInputs(contentDir: string): string {
  const hash = createHash("sha256");
  const inputs = [
    ["content", contentDir],
    ...BUILD_CODE_DIRS.map((d) => ["code", d] as const),
    ...DOCS_INPUTS.map((d) => ["docs", d] as const),
  ] as const;
  for (const [label, root] of inputs) {
    for (const file of _listFiles(root)) {
      hash.update(`${label}:${relative(root, file)}\0`);
      hash.update(readFileSync(file));
      hash.update("\0");
    }
  }
  return hash.digest("hex");
}

/** The stamp of the build in `outDir`, or null when there is none (or it does not parse). */
export function readInputStamp(outDir: string): InputStamp | null {
  try {
    const stamp = JSON.parse(readFileSync(join(outDir, INPUT_STAMP_FILE), "utf8")) as Partial<InputStamp>;
    return typeof stamp.input_digest === "string" && typeof stamp.build_id === "string"
      ? { input_digest: stamp.input_digest, build_id: stamp.build_id, release: stamp.release === true }
      : null;
  } catch {
    return null;
  }
}

/** Written by rename, so a reader sees the old stamp or the new one. */
export function writeInputStamp(outDir: string, stamp: InputStamp): void {
  const temp = join(outDir, `.${INPUT_STAMP_FILE}.${process.pid}`);
  writeFileSync(temp, `${JSON.stringify(stamp)}\n`);
  renameSync(temp, join(outDir, INPUT_STAMP_FILE));
}

// --- Internal helpers ---

/** Every file below `dir` (or the file itself), sorted, so the digest does not depend on directory order. */
function _listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  if (statSync(dir).isFile()) return [dir];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(..._listFiles(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}
