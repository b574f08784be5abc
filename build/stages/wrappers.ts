/**
 * Stage 3c, wrappers: the five shared wrapper fields of full responses, one markdown file each in
 * `content/_wrappers/` (frontmatter optional and ignored; the body is the text). A missing file
 * fails the build: a response without its wrapper would break the contract.
 */
import { join } from "node:path";
import { WRAPPER_FIELDS, type Wrapper } from "../../runtime/shared/schema/artifacts.ts";
import { type ResolvedBuildConfig, toDisplayFile } from "../config.ts";
import type { Diagnostics } from "../diagnostics.ts";
import type { SourceFile } from "./load.ts";
import { readFrontmatter } from "./parse.ts";

/** Wrapper field → file name, e.g. `node_types_explained` → `node-types-explained`. */
export const WRAPPER_FILES: Record<keyof Wrapper, string> = Object.fromEntries(
  WRAPPER_FIELDS.map((f) => [f, f.replace(/_/g, "-")]),
) as Record<keyof Wrapper, string>;

/** `undefined` when any wrapper is missing or empty. */
export function validateWrappers(files: readonly SourceFile[], config: ResolvedBuildConfig, diagnostics: Diagnostics): Wrapper | undefined {
  const wrapper: Partial<Wrapper> = {};
  for (const field of WRAPPER_FIELDS) {
    const name = WRAPPER_FILES[field];
    const source = files.find((f) => f.name === name);
    if (!source) {
      const file = toDisplayFile(config, join(config.contentDir, "_wrappers", `${name}.md`));
      diagnostics.add({ code: "wrapper_missing", file, message: `wrapper file for "${field}" is missing` });
      continue;
    }
    // Frontmatter is optional here: without it the whole file is the text.
    const fm = source.raw.startsWith("---") ? readFrontmatter(source.raw) : { body: source.raw, error: undefined };
    if (fm.error) {
      diagnostics.add({ code: "yaml_invalid", file: source.file, line: fm.error.line, message: fm.error.message });
      continue;
    }
    const text = fm.body.trim();
    if (!text) diagnostics.add({ code: "wrapper_empty", file: source.file, message: `wrapper "${field}" has no text` });
    else wrapper[field] = text;
  }
  for (const source of files) {
    if (!Object.values(WRAPPER_FILES).includes(source.name)) {
      const known = Object.values(WRAPPER_FILES).join(", ");
      diagnostics.add({ code: "wrapper_unknown", file: source.file, message: `unknown wrapper file (expected one of ${known})` });
    }
  }
  return Object.keys(wrapper).length === WRAPPER_FIELDS.length ? (wrapper as Wrapper) : undefined;
}
