/**
 * Typed answers: every outcome whose description names an amount, a percentage, a
 * deadline or a date carries typed values (so an agent never parses prose for them), and every
 * number in such a value also appears in the description it types. Over the REAL built content.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssue } from "../../build/diagnostics.ts";
import type { NodeResponse } from "../../runtime/shared/schema/artifacts.ts";
import { REPO_ROOT } from "../build/_fixtures.ts";
import { checkRealContent } from "../helpers/content-check.ts";

const VERTICALS = join(REPO_ROOT, "dist/data/verticals");
const MONTHS = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*";
const NAMES_A_FIGURE = new RegExp(
  [
    String.raw`(EUR|USD|GBP|\$|€|£)\s?\d`,
    String.raw`\d[\d,. ]*\s?SDR`,
    String.raw`\d+\s?%`,
    String.raw`\d+[\s-](minutes?|hours?|days?|business days|weeks?|months?|years?)\b`,
    String.raw`\d{1,2} ${MONTHS} \d{4}`,
    String.raw`\b\d{4}-\d{2}-\d{2}\b`,
  ].join("|"),
);

function outcomes() {
  const out: Array<{ where: string; description: string; values?: unknown[] }> = [];
  for (const vertical of readdirSync(VERTICALS).sort()) {
    const dir = join(VERTICALS, vertical, "nodes");
    for (const file of readdirSync(dir).filter((f) => /^[a-z0-9-]+\.json$/.test(f))) {
      const node = (JSON.parse(readFileSync(join(dir, file), "utf8")) as NodeResponse).node;
      for (const o of node.layers.logic?.outcomes ?? [])
        out.push({ where: `${vertical}/${node.id}#${o.id}`, description: o.description, values: o.values });
    }
  }
  return out;
}

describe("typed values on outcomes", () => {
  const all = outcomes();

  it("every outcome naming an amount, a percentage, a deadline or a date carries typed values", () => {
    const untyped = all.filter((o) => NAMES_A_FIGURE.test(o.description) && !o.values?.length).map((o) => `${o.where}: ${o.description}`);
    expect(untyped).toEqual([]);
  });

  it("covers all six verticals", () => {
    const verticals = new Set(all.filter((o) => o.values?.length).map((o) => o.where.split("/")[0]));
    expect([...verticals].sort()).toEqual(["a2a-handoff", "ai-compliance", "ecommerce", "real-estate", "travel", "traversal"]);
  });

  it("every number in a typed value is stated in the outcome's description", () => {
    const digits = (d: string) => d.replace(/(\d)[ ,](?=\d{3}\b)/g, "$1");
    const mismatched: string[] = [];
    for (const o of all) {
      for (const v of (o.values ?? []) as Array<Record<string, unknown>>) {
        const n = v.amount ?? v.percent;
        if (typeof n !== "number") continue;
        const text = digits(o.description);
        // 35 000 000 may be written "35 m"; 1 500 000 as "1 500 000" or "1.5 m".
        const forms = [String(n), n >= 1_000_000 ? `${n / 1_000_000} m` : String(n), n >= 1_000_000 ? `${n / 1_000_000}m` : String(n)];
        if (!forms.some((f) => text.includes(f))) mismatched.push(`${o.where}: ${n} not in "${o.description}"`);
      }
    }
    expect(mismatched).toEqual([]);
  });

  it("the build's typed-value lint finds nothing in the content, so a release build passes it", async () => {
    const result = await checkRealContent({ release: true });
    expect(result.issues.filter((i) => i.code === "value_untyped").map(formatIssue)).toEqual([]);
  });
});
