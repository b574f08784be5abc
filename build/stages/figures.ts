/**
 * Figures declared once per vertical (`content/<vertical>/_figures.yaml`: value, unit, source,
 * as-of date) so that a limit, amount, deadline or date stated in several nodes cannot drift
 * apart. Nodes use a figure in two ways:
 * - `{{fig:<id>}}` anywhere in the file is replaced by its display form ("EUR 400", "1,519 SDR",
 *   "7 days", "2 August 2026"), and `{{fig:<id>:value}}` by the bare value (for typed values);
 * - a typed value may name `figure: <id>`; the build fails when its number, date or unit differs
 *   from the declaration, so two nodes can never state one figure differently.
 */

import { type Static, Type } from "@sinclair/typebox";
import { parse as parseYaml } from "yaml";
import { DURATION_UNITS, FACT_NAME_RE } from "../../runtime/shared/schema/rules.ts";
import type { Diagnostics } from "../diagnostics.ts";
import { AUTHORED_DATE_RE } from "../schema/frontmatter.ts";
import { compileSchema } from "../schema/validator.ts";
import type { SourceFile } from "./load.ts";
import type { CompiledNode } from "./rules.ts";

const FigureSchema = Type.Object(
  {
    value: Type.Union([Type.Number(), Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" })]),
    /** A currency (ISO 4217), `SDR`, `percent`, `date`, or a duration unit. */
    unit: Type.String({ pattern: `^([A-Z]{3}|SDR|percent|date|${DURATION_UNITS.join("|")})$` }),
    source: Type.String({ minLength: 3 }),
    as_of: Type.String({ pattern: AUTHORED_DATE_RE }),
    /** How the text shows it, when the default form does not fit. */
    display: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type Figure = Static<typeof FigureSchema>;
const FiguresFileSchema = Type.Record(Type.String({ pattern: FACT_NAME_RE }), FigureSchema);
const checkFile = compileSchema(FiguresFileSchema);

const REFERENCE = /\{\{fig:([a-z][a-z0-9_]*)(:value)?\}\}/g;
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** Vertical → figure id → figure; an invalid file is reported and contributes nothing. */
export function readFigures(files: readonly SourceFile[], diagnostics: Diagnostics): Map<string, Map<string, Figure>> {
  const out = new Map<string, Map<string, Figure>>();
  for (const file of files) {
    let data: unknown;
    try {
      data = parseYaml(file.raw) ?? {};
    } catch (error) {
      diagnostics.add({
        code: "figure_invalid",
        file: file.file,
        message: error instanceof Error ? error.message.split("\n")[0]! : String(error),
      });
      continue;
    }
    const errors = checkFile(data);
    for (const e of errors)
      diagnostics.add({
        code: "figure_invalid",
        file: file.file,
        line: _lineOf(file.raw, String(e.path[0] ?? "")),
        pointer: e.path.join("."),
        message: e.message,
      });
    if (errors.length === 0) out.set(file.vertical!, new Map(Object.entries(data as Record<string, Figure>)));
  }
  return out;
}

/** The display form of a figure. @example displayFigure({ value: 1519, unit: "SDR", ... }) // "1,519 SDR" */
export function displayFigure(f: Figure): string {
  if (f.display) return f.display;
  if (typeof f.value === "string") {
    const [y, m, d] = f.value.split("-").map(Number) as [number, number, number];
    return `${d} ${MONTHS[m - 1]} ${y}`;
  }
  const n = f.value.toLocaleString("en-GB", { maximumFractionDigits: 6 });
  if (f.unit === "percent") return `${n} %`;
  if (f.unit === "SDR") return `${n} SDR`;
  if (/^[A-Z]{3}$/.test(f.unit)) return `${f.unit} ${n}`;
  const unit = f.unit.replace("_", " ");
  return `${n} ${f.value === 1 ? unit.replace(/s$/, "") : unit}`;
}

/** Node sources with every `{{fig:…}}` replaced; an unknown figure is reported where it is used. */
export function substituteFigures(
  nodes: readonly SourceFile[],
  figures: ReadonlyMap<string, ReadonlyMap<string, Figure>>,
  diagnostics: Diagnostics,
): SourceFile[] {
  return nodes.map((node) => {
    if (!node.raw.includes("{{fig:")) return node;
    const known = figures.get(node.vertical!) ?? new Map<string, Figure>();
    const raw = node.raw.replace(REFERENCE, (match, id: string, bare: string | undefined, offset: number) => {
      const figure = known.get(id);
      if (!figure) {
        diagnostics.add({
          code: "figure_unknown",
          file: node.file,
          line: 1 + (node.raw.slice(0, offset).match(/\n/g)?.length ?? 0),
          message: `figure "${id}" is not declared in content/${node.vertical}/_figures.yaml`,
        });
        return match;
      }
      return bare ? String(figure.value) : displayFigure(figure);
    });
    return { ...node, raw };
  });
}

/** A typed value naming `figure:` must state exactly the declared value and unit. */
export function checkFigureValues(
  nodes: readonly CompiledNode[],
  figures: ReadonlyMap<string, ReadonlyMap<string, Figure>>,
  diagnostics: Diagnostics,
): void {
  for (const node of nodes) {
    const known = figures.get(node.vertical) ?? new Map<string, Figure>();
    for (const [outcome, values] of Object.entries(node.frontmatter.values ?? {})) {
      values.forEach((v, i) => {
        if (!v.figure) return;
        const path = ["values", outcome, i, "figure"];
        const report = (code: "figure_unknown" | "figure_conflict", message: string) =>
          diagnostics.add({
            code,
            file: node.source.file,
            line: node.parsed.locate(path),
            pointer: `values.${outcome}[${i}].figure`,
            message,
          });
        const figure = known.get(v.figure);
        if (!figure) return report("figure_unknown", `figure "${v.figure}" is not declared in content/${node.vertical}/_figures.yaml`);
        const stated = "amount" in v ? v.amount : "percent" in v ? v.percent : "date" in v ? v.date : undefined;
        const unit =
          "currency" in v ? v.currency : v.type === "percent" ? "percent" : v.type === "date" ? "date" : "unit" in v ? v.unit : undefined;
        if (stated !== figure.value || (unit !== undefined && unit !== figure.unit)) {
          report(
            "figure_conflict",
            `states ${String(stated)} ${String(unit)} but figure "${v.figure}" is ${String(figure.value)} ${figure.unit} (${figure.source}, as of ${figure.as_of}); use {{fig:${v.figure}:value}}`,
          );
        }
      });
    }
  }
}

// --- Internal helpers ---

function _lineOf(raw: string, key: string): number | undefined {
  const i = raw.split("\n").findIndex((l) => l.startsWith(`${key}:`));
  return i >= 0 ? i + 1 : undefined;
}
