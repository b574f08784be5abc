/**
 * Stage 3, validate: each node on its own. Frontmatter against the schema (all errors, with
 * lines), the id, dates and deprecation fields, and the four layers. What passes is a
 * `ValidatedNode`, which later stages trust.
 */
import { LAYER_NAMES, type LayerName } from "../../runtime/shared/schema/catalog.ts";
import { toIsoDateTime } from "../dates.ts";
import { type Diagnostics, toDisplayPath } from "../diagnostics.ts";
import { shortDigest, toCanonicalJson } from "../digest.ts";
import { AUTHORED_DATE_RE, type NodeFrontmatter, NodeFrontmatterSchema } from "../schema/frontmatter.ts";
import { compileSchema } from "../schema/validator.ts";
import type { ParsedFile } from "./parse.ts";

export interface ValidatedLayer {
  text: string;
  tokens: number;
}

export interface ValidatedNode extends ParsedFile {
  vertical: string;
  /** The node id: the file name (an `id` that differs is reported, never silently used). */
  id: string;
  frontmatter: NodeFrontmatter;
  layers: Record<LayerName, ValidatedLayer>;
  /** Authored dates in canonical UTC form. */
  dates: { created: string; updated: string; deprecated_at?: string; reviewed?: string; review_by?: string; editorial?: string };
  /** 16 hex of the sha256 of the canonical authored content (frontmatter + layers). */
  version: string;
}

const HEADINGS: Record<string, LayerName> = { Logic: "logic", Directive: "directive", Skill: "skill", Action: "action" };
const checkFrontmatter = compileSchema(NodeFrontmatterSchema);
const DATE_FORMAT = new RegExp(AUTHORED_DATE_RE);

/** Validates every node; schema-invalid nodes are reported and left out of the result. */
export function validateNodes(files: readonly ParsedFile[], diagnostics: Diagnostics): ValidatedNode[] {
  const out: ValidatedNode[] = [];
  for (const file of files) {
    const node = _validateNode(file, diagnostics);
    if (node) out.push(node);
  }
  return out;
}

// --- Internal helpers ---

function _validateNode(pf: ParsedFile, diagnostics: Diagnostics): ValidatedNode | undefined {
  const { source, parsed } = pf;
  const report = (code: Parameters<Diagnostics["add"]>[0]["code"], path: Array<string | number>, message: string) =>
    diagnostics.add({ code, file: source.file, line: parsed.locate(path), pointer: toDisplayPath(path) || undefined, message });

  if (parsed.yamlError) {
    diagnostics.add({ code: "yaml_invalid", file: source.file, line: parsed.yamlError.line, message: parsed.yamlError.message });
    return undefined;
  }
  const errors = checkFrontmatter(parsed.data ?? {});
  for (const e of errors) report("schema_invalid", [...e.path], e.message);
  if (errors.length > 0) return undefined;
  const fm = parsed.data as NodeFrontmatter;

  if (fm.id !== source.name) report("id_mismatch", ["id"], `id "${fm.id}" must equal the file name "${source.name}"`);

  // Dates: real calendar dates, then their order.
  const dates: Partial<ValidatedNode["dates"]> = {};
  for (const key of ["created", "updated", "deprecated_at", "reviewed", "review_by", "editorial"] as const) {
    const value = fm[key];
    if (value === undefined) continue;
    const formatted = DATE_FORMAT.test(value);
    const iso = formatted ? toIsoDateTime(value) : undefined;
    if (iso) dates[key] = iso;
    else
      report(
        "date_invalid",
        [key],
        `"${value}" is not ${formatted ? "a real date" : "a date"}: write YYYY-MM-DD (e.g. 2026-11-23, midnight UTC) or a date-time with its offset (e.g. 2026-11-23T14:30:00Z or 2026-11-23T15:30:00+01:00)`,
      );
  }
  const { created, updated, deprecated_at, reviewed, review_by, editorial } = dates;
  if (reviewed && review_by && review_by < reviewed)
    report("dates_out_of_order", ["review_by"], `review_by (${fm.review_by}) is before reviewed (${fm.reviewed})`);
  if (created && updated && updated < created)
    report("dates_out_of_order", ["updated"], `updated (${fm.updated}) is before created (${fm.created})`);
  if (created && deprecated_at && deprecated_at < created) {
    report("dates_out_of_order", ["deprecated_at"], `deprecated_at (${fm.deprecated_at}) is before created (${fm.created})`);
  }
  if (fm.status === "deprecated" && fm.deprecated_at === undefined) {
    report("deprecation_date_missing", ["status"], "a deprecated node needs deprecated_at");
  }
  if (fm.status === "active") {
    for (const key of ["deprecated_at", "replaced_by"] as const) {
      if (fm[key] !== undefined) report("deprecation_fields_on_active", [key], `${key} is only allowed on a deprecated node`);
    }
  }
  const sourceIds = new Set<string>();
  fm.sources.forEach((s, i) => {
    if (sourceIds.has(s.id)) report("source_id_duplicate", ["sources", i, "id"], `source id "${s.id}" is declared twice`);
    sourceIds.add(s.id);
  });

  const layers = _checkLayers(pf, diagnostics);
  return {
    ...pf,
    vertical: source.vertical!,
    id: source.name,
    frontmatter: fm,
    layers,
    dates: {
      created: created ?? fm.created,
      updated: updated ?? fm.updated,
      ...(deprecated_at ? { deprecated_at } : {}),
      ...(reviewed ? { reviewed } : {}),
      ...(review_by ? { review_by } : {}),
      ...(editorial ? { editorial } : {}),
    },
    version: _versionOf(fm, layers),
  };
}

/** Exactly `## Logic`, `## Directive`, `## Skill`, `## Action`, in that order, none empty. */
function _checkLayers({ source, parsed }: ParsedFile, diagnostics: Diagnostics): Record<LayerName, ValidatedLayer> {
  const add = (code: "layer_missing" | "layer_empty" | "layer_order" | "layer_unknown", line: number | undefined, message: string) =>
    diagnostics.add({ code, file: source.file, ...(line ? { line } : {}), message });
  const layers = Object.fromEntries(LAYER_NAMES.map((l) => [l, { text: "", tokens: 0 }])) as Record<LayerName, ValidatedLayer>;
  const seen = new Set<LayerName>();
  let lastIndex = -1;

  if (parsed.body.preamble) add("layer_unknown", parsed.body.preamble.line, "text before `## Logic` belongs to no layer");
  parsed.body.sections.forEach((section, i) => {
    const layer = HEADINGS[section.heading];
    if (!layer) {
      const expected = Object.keys(HEADINGS)
        .map((h) => `## ${h}`)
        .join(", ");
      return add("layer_unknown", section.line, `unknown layer heading "## ${section.heading}" (expected ${expected})`);
    }
    const index = LAYER_NAMES.indexOf(layer);
    if (seen.has(layer)) return add("layer_order", section.line, `"## ${section.heading}" appears twice`);
    if (index < lastIndex)
      add("layer_order", section.line, `"## ${section.heading}" must come before "## ${_heading(LAYER_NAMES[lastIndex]!)}"`);
    seen.add(layer);
    lastIndex = Math.max(lastIndex, index);
    if (!section.text) add("layer_empty", section.line, `layer "## ${section.heading}" is empty`);
    layers[layer] = { text: section.text, tokens: parsed.sectionTokens[i] ?? 0 };
  });
  for (const layer of LAYER_NAMES) {
    if (!seen.has(layer)) add("layer_missing", undefined, `missing layer "## ${_heading(layer)}"`);
  }
  return layers;
}

/**
 * The node's content version: a digest of what an agent can receive. `questions` only steer search
 * and are not part of any node response, so rewording them changes no version (nor the change feed).
 */
function _versionOf(fm: NodeFrontmatter, layers: Record<LayerName, ValidatedLayer>): string {
  // Neither is in any response: questions feed search, editorial only the review check.
  const { questions: _searchOnly, editorial: _reviewCheckOnly, ...content } = fm;
  return shortDigest(toCanonicalJson({ frontmatter: content, layers: LAYER_NAMES.map((l) => layers[l].text) }));
}

function _heading(layer: LayerName): string {
  return layer[0]!.toUpperCase() + layer.slice(1);
}
