/**
 * Typed wherever a value is stated: an outcome whose text states a date, an amount, a percentage,
 * a duration or a well-known path must carry that value typed (`values:`), so an agent never parses
 * prose for the answer; a line of the Directive layer that states one must find it typed on some
 * outcome of the node. Deliberate prose (a figure quoted to warn against it, a citation's date) is
 * listed once in the node's `prose_values:`. A warning in a dev build, an error in a release build.
 */
import type { OutcomeValue } from "../../runtime/shared/schema/rules.ts";
import type { ResolvedBuildConfig } from "../config.ts";
import { type Diagnostics, toDisplayPath } from "../diagnostics.ts";
import type { ValidatedNode } from "./validate.ts";

/** One figure stated in prose: its kind and value, comparable with a typed value's. */
export interface StatedValue {
  text: string;
  key: string;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const UNITS: Record<string, string> = {
  minute: "minutes",
  hour: "hours",
  day: "days",
  "business day": "business_days",
  week: "weeks",
  month: "months",
  year: "years",
};
const PATTERNS: Array<[RegExp, (m: RegExpMatchArray) => string | undefined]> = [
  [/(?:EUR|USD|GBP|€|\$|£)\s?(\d[\d,. ]*\d|\d)(\s?(?:m|million)\b)?/g, (m) => `amount:${_number(m[1]!, m[2])}`],
  [/(\d[\d,. ]*\d|\d)\s?SDR\b/g, (m) => `amount:${_number(m[1]!)}`],
  [/(\d+(?:\.\d+)?)\s?%/g, (m) => `percent:${Number(m[1])}`],
  [
    /\b(\d+)[\s-](minute|hour|business[\s-]day|day|week|month|year)s?\b/gi,
    (m) => `duration:${m[1]}:${UNITS[m[2]!.toLowerCase().replace("-", " ")]}`,
  ],
  [
    /\b(\d{1,2})\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{4})\b/gi,
    (m) => `date:${m[3]}-${String(MONTHS.indexOf(m[2]!.toLowerCase()) + 1).padStart(2, "0")}-${m[1]!.padStart(2, "0")}`,
  ],
  [/\b(\d{4})-(\d{2})-(\d{2})\b/g, (m) => `date:${m[1]}-${m[2]}-${m[3]}`],
  [/\/\.well-known\/[\w.-]*[\w-]/g, (m) => `path:${m[0]}`],
];

/**
 * The figures a text states, in order.
 * @example statedValues("EUR 400 within 7 days") // [{ text: "EUR 400", key: "amount:400" }, { text: "7 days", key: "duration:7:days" }]
 */
export function statedValues(text: string): StatedValue[] {
  const found: Array<StatedValue & { at: number }> = [];
  for (const [re, key] of PATTERNS) {
    for (const m of text.matchAll(re)) {
      const k = key(m);
      if (k) found.push({ text: m[0].trim(), key: k, at: m.index });
    }
  }
  return found.sort((a, b) => a.at - b.at).map(({ text: t, key: k }) => ({ text: t, key: k }));
}

/** The keys a typed value answers to (a URL also answers to its path). */
export function typedKeys(value: OutcomeValue): string[] {
  switch (value.type) {
    case "amount":
    case "cap":
      return [`amount:${value.amount}`];
    case "percent":
      return [`percent:${value.percent}`];
    case "duration":
      return [`duration:${value.amount}:${value.unit}`];
    case "date":
      return [`date:${value.date}`];
    case "path":
      return [`path:${value.path}`];
    case "url":
      return [`path:${new URL(value.url).pathname}`];
  }
}

/** Flags figures stated in outcome descriptions and Directive lines that no typed value carries. */
export function lintUntypedValues(
  nodes: readonly ValidatedNode[],
  config: Pick<ResolvedBuildConfig, "release">,
  diagnostics: Diagnostics,
): void {
  const fatal = config.release;
  for (const node of nodes) {
    const fm = node.frontmatter;
    const allowed = fm.prose_values ?? [];
    const isProse = (line: string, stated: StatedValue) => allowed.some((p) => p.includes(stated.text) && line.includes(p));
    const typedOn = (outcome: string) => new Set((fm.values?.[outcome] ?? []).flatMap(typedKeys));
    const typedAnywhere = new Set(Object.keys(fm.values ?? {}).flatMap((o) => [...typedOn(o)]));
    const add = (line: number | undefined, pointer: string | undefined, message: string) =>
      diagnostics.add({
        code: "value_untyped",
        file: node.source.file,
        ...(line ? { line } : {}),
        ...(pointer ? { pointer } : {}),
        message,
        fatal,
      });

    for (const [outcome, description] of Object.entries(fm.outcomes ?? {})) {
      const typed = typedOn(outcome);
      const missing = statedValues(description).filter((s) => !typed.has(s.key) && !isProse(description, s));
      if (missing.length === 0) continue;
      const path = ["outcomes", outcome];
      add(
        node.parsed.locate(path),
        toDisplayPath(path),
        `outcome "${outcome}" states ${_list(missing)} with no typed value carrying it: add it under values.${outcome}, or list the phrase in prose_values`,
      );
    }
    const directive = node.layers.directive.text;
    const offset = _layerLine(node.source.raw, "Directive");
    directive.split("\n").forEach((line, i) => {
      const missing = statedValues(line).filter((s) => !typedAnywhere.has(s.key) && !isProse(line, s));
      if (missing.length === 0) return;
      add(
        offset ? offset + 1 + i : undefined,
        undefined,
        `the Directive states ${_list(missing)}, which no outcome of this node carries typed: type it on the outcome that answers it, or list the phrase in prose_values`,
      );
    });
  }
}

// --- Internal helpers ---

/** "1,519" → 1519; "35 000 000" → 35000000; "35" with "m" → 35000000. */
function _number(digits: string, millions?: string): number {
  const n = Number(digits.replace(/[ ,]/g, ""));
  return millions ? n * 1_000_000 : n;
}

function _list(values: StatedValue[]): string {
  return values.map((v) => `"${v.text}"`).join(", ");
}

/** 1-based line of `## <name>` in the raw file: the Directive text starts on the next line. */
function _layerLine(raw: string, name: string): number | undefined {
  const index = raw.split("\n").findIndex((l) => l.trim() === `## ${name}`);
  return index >= 0 ? index + 1 : undefined;
}
