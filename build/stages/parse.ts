/**
 * Stage 2, parse: frontmatter with gray-matter, body split into H2 sections with remark. Pure in
 * the file's bytes, hence cacheable by digest across builds.
 *
 * The YAML engine is the `yaml` package (the project's one YAML library) with its YAML 1.2 core
 * schema: dates stay strings (a YAML 1.1 timestamp type would turn `2026-11-01` into a Date) and
 * `yes`/`no` stay strings. gray-matter's own js-yaml is never used: the engine is passed in.
 */
import matter from "gray-matter";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { BuildCache } from "../cache.ts";
import { sha256 } from "../digest.ts";
import { createLocator, type LocateField } from "../locate.ts";
import { type SplitBody, splitBody } from "../markdown/layers.ts";
import { countTokens } from "../tokens.ts";
import type { SourceFile } from "./load.ts";

/** What parsing yields as plain data (structured-cloneable, so a worker thread can produce it). */
export interface ParsedNodeData {
  /** sha256 of the raw file: the cache key. */
  digest: string;
  /** Frontmatter as plain data; `undefined` when it could not be parsed. */
  data: unknown;
  /** Why the frontmatter could not be parsed, with its file line. */
  yamlError?: { line: number; message: string };
  /** The frontmatter's YAML text, kept to locate fields when there is something to report. */
  frontmatter: string;
  body: SplitBody;
  /** Token count of each body section, same order as `body.sections`. */
  sectionTokens: number[];
}

export interface ParsedNode extends ParsedNodeData {
  /** Line of a frontmatter field, for messages. */
  locate: LocateField;
}

export interface ParsedFile {
  source: SourceFile;
  parsed: ParsedNode;
}

// gray-matter's `matter` starts right after the opening `---`, so its line 1 is file line 1.
const FRONTMATTER_FIRST_LINE = 1;
// Passing options also turns off gray-matter's unbounded module-level cache of every input.
const MATTER_OPTIONS = {
  engines: { yaml: { parse: (s: string) => (parseYaml(s) ?? {}) as object, stringify: () => "" } },
};

/**
 * Parses one file, reusing a cached result for identical bytes.
 * @param options.tokens count tokens of body sections (nodes only)
 */
export function parseSource(source: SourceFile, cache?: BuildCache, options: { tokens?: boolean } = {}): ParsedFile {
  const digest = sha256(source.raw);
  const hit = cache?.parsed.get(digest);
  if (hit) return { source, parsed: hit };
  const parsed = toParsedNode(parseRaw(source.raw, digest, options.tokens ?? false));
  cache?.parsed.set(digest, parsed);
  return { source, parsed };
}

/** Adds the (non-cloneable) field locator to parsed data. */
export function toParsedNode(data: ParsedNodeData): ParsedNode {
  return { ...data, locate: createLocator(data.frontmatter, FRONTMATTER_FIRST_LINE) };
}

/** The pure part of parsing, run on the main thread or in `parse-pool.ts` workers. */
export function parseRaw(raw: string, digest: string, withTokens: boolean): ParsedNodeData {
  const fm = readFrontmatter(raw);
  // Lines before the body: everything gray-matter consumed (delimiters + frontmatter).
  const bodyFirstLine = raw.endsWith(fm.body) ? _countLines(raw.slice(0, raw.length - fm.body.length)) + 1 : 1;
  const split = splitBody(fm.body, bodyFirstLine);
  return {
    digest,
    data: fm.data,
    ...(fm.error ? { yamlError: fm.error } : {}),
    frontmatter: fm.source,
    body: split,
    sectionTokens: withTokens ? split.sections.map((s) => countTokens(s.text)) : [],
  };
}

export interface Frontmatter {
  data: unknown;
  /** The YAML text between the delimiters. */
  source: string;
  body: string;
  error?: { line: number; message: string };
}

/**
 * Splits `---` frontmatter from the body with gray-matter; YAML errors come back with a file line.
 * @example readFrontmatter("---\na: 1\n---\ntext").data // { a: 1 }
 */
export function readFrontmatter(raw: string): Frontmatter {
  if (!/^---\r?\n/.test(raw)) {
    return {
      data: undefined,
      source: "",
      body: raw,
      error: { line: 1, message: "missing frontmatter: the file must start with a `---` line" },
    };
  }
  try {
    const file = matter(raw, MATTER_OPTIONS);
    return { data: file.data, source: file.matter, body: file.content };
  } catch (error) {
    // `yaml` positions are 1-based lines of the frontmatter text, whose line 1 is the file's.
    const at = error instanceof YAMLParseError ? error.linePos?.[0]?.line : undefined;
    const line = at !== undefined ? at - 1 + FRONTMATTER_FIRST_LINE : 1;
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    return { data: undefined, source: "", body: "", error: { line, message: `frontmatter is not valid YAML: ${message}` } };
  }
}

// --- Internal helpers ---

function _countLines(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}
