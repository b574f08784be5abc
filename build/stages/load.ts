/**
 * Stage 1, load: reads `content/` into `SourceFile`s. Names starting with `_`, `.` or an upper-case
 * letter are not nodes (content/AUTHORING.md); `_catalog/` and `_wrappers/` are read as data.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ResolvedBuildConfig, toDisplayFile } from "../config.ts";

export type SourceKind = "node" | "index" | "catalog" | "wrapper" | "figures" | "review" | "review-doc";

export interface SourceFile {
  kind: SourceKind;
  /** Absolute path. */
  path: string;
  /** Path shown in diagnostics, e.g. `content/travel/x.md`. */
  file: string;
  /** Folder name for nodes and indexes; `null` for catalogue and wrapper files. */
  vertical: string | null;
  /** File name without extension: the node id, the catalogue name or the wrapper name. */
  name: string;
  raw: string;
}

export interface LoadedContent {
  nodes: SourceFile[];
  indexes: SourceFile[];
  catalog: SourceFile[];
  wrappers: SourceFile[];
  /** `content/<vertical>/_figures.yaml`, one per vertical that declares figures. */
  figures: SourceFile[];
  /** `content/<vertical>/_review.yaml`: the review records of a vertical's nodes. */
  reviews: SourceFile[];
  /** `content/<vertical>/REVIEW.md`, read where the vertical keeps review records. */
  reviewDocs: SourceFile[];
  /** Every vertical folder that holds at least one markdown file. */
  verticals: string[];
}

const CATALOG_DIR = "_catalog";
const WRAPPERS_DIR = "_wrappers";
const FIGURES_FILE = "_figures.yaml";
const REVIEW_FILE = "_review.yaml";
const REVIEW_DOC = "REVIEW.md";
const SKIPPED_NAME_RE = /^[_.A-Z]/;

/** Reads the content folder; listings are sorted so every later stage sees a stable order. */
export function loadContent(config: ResolvedBuildConfig): LoadedContent {
  if (!existsSync(config.contentDir)) throw new Error(`content folder not found: ${config.contentDir}`);
  const out: LoadedContent = { nodes: [], indexes: [], catalog: [], wrappers: [], figures: [], reviews: [], reviewDocs: [], verticals: [] };
  const read = (kind: SourceKind, path: string, vertical: string | null, name: string): SourceFile => ({
    kind,
    path,
    file: toDisplayFile(config, path),
    vertical,
    name,
    raw: readFileSync(path, "utf8"),
  });

  for (const entry of _list(config.contentDir)) {
    const dir = join(config.contentDir, entry.name);
    if (!entry.isDirectory()) continue;
    if (entry.name === CATALOG_DIR) {
      for (const f of _files(dir, ".yaml")) out.catalog.push(read("catalog", join(dir, f), null, f.slice(0, -5)));
    } else if (entry.name === WRAPPERS_DIR) {
      for (const f of _files(dir, ".md")) out.wrappers.push(read("wrapper", join(dir, f), null, f.slice(0, -3)));
    } else if (!SKIPPED_NAME_RE.test(entry.name)) {
      const files = _files(dir, ".md");
      if (files.length > 0) out.verticals.push(entry.name);
      if (existsSync(join(dir, FIGURES_FILE))) out.figures.push(read("figures", join(dir, FIGURES_FILE), entry.name, "_figures"));
      if (existsSync(join(dir, REVIEW_FILE))) {
        out.reviews.push(read("review", join(dir, REVIEW_FILE), entry.name, "_review"));
        if (existsSync(join(dir, REVIEW_DOC))) out.reviewDocs.push(read("review-doc", join(dir, REVIEW_DOC), entry.name, "REVIEW"));
      }
      for (const f of files) {
        if (f === "_index.md") out.indexes.push(read("index", join(dir, f), entry.name, "_index"));
        else if (!SKIPPED_NAME_RE.test(f)) out.nodes.push(read("node", join(dir, f), entry.name, f.slice(0, -3)));
      }
    }
  }
  return out;
}

// --- Internal helpers ---

function _list(dir: string) {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function _files(dir: string, ext: string): string[] {
  return _list(dir)
    .filter((e) => e.isFile() && e.name.endsWith(ext))
    .map((e) => e.name);
}
