/** build/stages/figures.ts: a figure declared once is substituted into text and typed values. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContent } from "../../build/index.ts";
import { displayFigure } from "../../build/stages/figures.ts";
import { createTempDir, FIXTURES_DIR, materializeFixture } from "./_fixtures.ts";

const FIGURES = "eu_band_short:\n  value: 250\n  unit: EUR\n  source: Regulation (EC) No 261/2004, Art. 7(1)(a)\n  as_of: 2026-11-23\n";

describe("figures", () => {
  it("shows each unit in its display form", () => {
    const f = { source: "s", as_of: "2026-11-23" };
    expect(displayFigure({ ...f, value: 1519, unit: "SDR" })).toBe("1,519 SDR");
    expect(displayFigure({ ...f, value: 400, unit: "EUR" })).toBe("EUR 400");
    expect(displayFigure({ ...f, value: 3, unit: "business_days" })).toBe("3 business days");
    expect(displayFigure({ ...f, value: 1, unit: "years" })).toBe("1 year");
    expect(displayFigure({ ...f, value: 50, unit: "percent" })).toBe("50 %");
    expect(displayFigure({ ...f, value: "2026-08-02", unit: "date" })).toBe("2 August 2026");
  });

  it("substitutes {{fig:id}} into text and {{fig:id:value}} into a typed value that names the figure", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    writeFileSync(join(contentDir, "travel/_figures.yaml"), FIGURES);
    const source = readFileSync(join(FIXTURES_DIR, "invalid/figure_conflict/travel/trv-start.md"), "utf8")
      .replace("amount: 300", "amount: {{fig:eu_band_short:value}}")
      .replace(
        "EU261 applies to departures from the EU",
        "The short band is {{fig:eu_band_short}}. EU261 applies to departures from the EU",
      );
    mkdirSync(join(contentDir, "travel"), { recursive: true });
    writeFileSync(join(contentDir, "travel/trv-start.md"), source);
    const result = await buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false, previous: false });
    expect(result.issues.filter((i) => i.fatal)).toEqual([]);
    const node = JSON.parse(result.files!.get("verticals/travel/nodes/trv-start.json")!).node;
    expect(node.layers.logic.text).toContain("The short band is EUR 250.");
    expect(node.layers.logic.outcomes[0].values).toEqual([{ type: "amount", amount: 250, currency: "EUR", figure: "eu_band_short" }]);
  });
});
