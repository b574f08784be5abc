/**
 * Stage 3b, validate the catalogue: `content/_catalog/*.yaml` against the shared contract, the
 * slug/alias table, and the vertical folders against it. Resolves aliases in exactly one place.
 */
import { join } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { Cohort, Limits, VerticalEntry } from "../../runtime/shared/schema/catalog.ts";
import { type ResolvedBuildConfig, toDisplayFile } from "../config.ts";
import { type Diagnostics, toDisplayPath } from "../diagnostics.ts";
import { createLocator, type FieldPath } from "../locate.ts";
import {
  type CohortsFile,
  CohortsFileSchema,
  LimitsFileSchema,
  type StatusFile,
  StatusFileSchema,
  toClosedSchema,
  type VerticalsFile,
  VerticalsFileSchema,
} from "../schema/catalog-files.ts";
import { type CheckValue, compileSchema } from "../schema/validator.ts";
import type { LoadedContent, SourceFile } from "./load.ts";

/** The validated catalogue data, before counts are added from content. */
export interface CatalogData {
  apiVersion: string;
  verticals: VerticalEntry[];
  /** Every accepted slug (canonical and alias) → canonical slug. */
  slugs: Record<string, string>;
  cohorts: Cohort[];
  limits: Limits;
  status: StatusFile;
}

const CATALOG_FILES: Record<string, CheckValue> = {
  verticals: compileSchema(toClosedSchema(VerticalsFileSchema)),
  cohorts: compileSchema(toClosedSchema(CohortsFileSchema)),
  limits: compileSchema(toClosedSchema(LimitsFileSchema)),
  status: compileSchema(toClosedSchema(StatusFileSchema as TSchema)),
};

/** `undefined` when any catalogue file is missing or invalid (the build then fails anyway). */
export function validateCatalog(content: LoadedContent, config: ResolvedBuildConfig, diagnostics: Diagnostics): CatalogData | undefined {
  const data: Record<string, unknown> = {};
  for (const [name, check] of Object.entries(CATALOG_FILES)) {
    const source = content.catalog.find((f) => f.name === name);
    if (!source) {
      const file = toDisplayFile(config, join(config.contentDir, "_catalog", `${name}.yaml`));
      diagnostics.add({ code: "catalog_missing", file, message: `catalogue file ${name}.yaml is missing` });
      continue;
    }
    const value = _readYaml(source, check, diagnostics);
    if (value !== undefined) data[name] = value;
  }
  for (const source of content.catalog) {
    if (!(source.name in CATALOG_FILES)) {
      const known = Object.keys(CATALOG_FILES).join(", ");
      diagnostics.add({ code: "catalog_invalid", file: source.file, message: `unknown catalogue file (expected one of ${known})` });
    }
  }
  if (Object.keys(data).length !== Object.keys(CATALOG_FILES).length) return undefined;

  const verticals = (data.verticals as VerticalsFile).verticals;
  const slugs = _resolveSlugs(verticals, content.catalog.find((f) => f.name === "verticals")!, diagnostics);
  _checkCohorts((data.cohorts as CohortsFile).cohorts, content.catalog.find((f) => f.name === "cohorts")!, diagnostics);
  _checkFolders(content, config, slugs, diagnostics);
  return {
    apiVersion: (data.verticals as VerticalsFile).api_version,
    verticals,
    slugs,
    cohorts: (data.cohorts as CohortsFile).cohorts,
    limits: data.limits as Limits,
    status: data.status as StatusFile,
  };
}

// --- Internal helpers ---

function _readYaml(source: SourceFile, check: CheckValue, diagnostics: Diagnostics): unknown {
  let value: unknown;
  try {
    value = parseYaml(source.raw);
  } catch (error) {
    const line = error instanceof YAMLParseError ? error.linePos?.[0]?.line : undefined;
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    diagnostics.add({ code: "yaml_invalid", file: source.file, ...(line ? { line } : {}), message: `not valid YAML: ${message}` });
    return undefined;
  }
  const errors = check(value ?? {});
  const locate = createLocator(source.raw, 1);
  for (const e of errors) {
    diagnostics.add({
      code: "catalog_invalid",
      file: source.file,
      line: locate(e.path),
      pointer: toDisplayPath(e.path) || undefined,
      message: e.message,
    });
  }
  return errors.length === 0 ? value : undefined;
}

function _resolveSlugs(verticals: VerticalEntry[], source: SourceFile, diagnostics: Diagnostics): Record<string, string> {
  const slugs: Record<string, string> = {};
  const locate = createLocator(source.raw, 1);
  verticals.forEach((v, i) => {
    const claims: Array<[string, FieldPath]> = [
      [v.slug, ["verticals", i, "slug"]],
      ...(v.aliases ?? []).map((a, j): [string, FieldPath] => [a, ["verticals", i, "aliases", j]]),
    ];
    for (const [slug, path] of claims) {
      if (slug in slugs) {
        diagnostics.add({
          code: "catalog_slug_duplicate",
          file: source.file,
          line: locate(path),
          pointer: toDisplayPath(path),
          message: `slug "${slug}" is already used by vertical "${slugs[slug]}"`,
        });
      } else slugs[slug] = v.slug;
    }
  });
  return slugs;
}

function _checkCohorts(cohorts: Cohort[], source: SourceFile, diagnostics: Diagnostics): void {
  const locate = createLocator(source.raw, 1);
  const seen = new Set<string>();
  cohorts.forEach((c, i) => {
    if (seen.has(c.name)) {
      const path = ["cohorts", i, "name"];
      diagnostics.add({
        code: "catalog_invalid",
        file: source.file,
        line: locate(path),
        pointer: toDisplayPath(path),
        message: `cohort "${c.name}" is listed twice`,
      });
    }
    seen.add(c.name);
  });
}

/** A content folder must be a canonical slug of the catalogue (not an alias, not unknown). */
function _checkFolders(content: LoadedContent, config: ResolvedBuildConfig, slugs: Record<string, string>, diagnostics: Diagnostics): void {
  for (const folder of content.verticals) {
    const canonical = slugs[folder];
    if (canonical === folder) continue;
    const file = toDisplayFile(config, join(config.contentDir, folder)) + "/";
    const message =
      canonical === undefined
        ? `vertical folder "${folder}" is not in content/_catalog/verticals.yaml`
        : `"${folder}" is an alias of "${canonical}"; put the content in the folder "${canonical}"`;
    diagnostics.add({ code: "vertical_unknown", file, message });
  }
}
