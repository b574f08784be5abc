/** Every file of a built fixture dist validates against the runtime/shared/schema shape for its path. */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { beforeAll, describe, expect, it } from "vitest";
import { buildContent } from "../../build/index.ts";
import { compileSchema } from "../../build/schema/validator.ts";
import {
  ChangelogSchema,
  IndexGraphSchema,
  LeanIndexGraphSchema,
  LeanNodeResponseSchema,
  ManifestSchema,
  NodeResponseSchema,
} from "../../runtime/shared/schema/artifacts.ts";
import { CatalogSchema } from "../../runtime/shared/schema/catalog.ts";
import { SearchIndexSchema } from "../../runtime/shared/schema/search.ts";
import { StatusStaticSchema } from "../../runtime/shared/schema/status.ts";
import { createTempDir, materializeFixture } from "../build/_fixtures.ts";

/** Path pattern → schema; every emitted file must match exactly one. */
const SCHEMAS: Array<[RegExp, TSchema]> = [
  [/^manifest\.json$/, ManifestSchema],
  [/^catalog\.json$/, CatalogSchema],
  [/^status\.json$/, StatusStaticSchema],
  [/^changelog\.json$/, ChangelogSchema],
  [/^verticals\/[^/]+\/index\.json$/, IndexGraphSchema],
  [/^verticals\/[^/]+\/index\.lean\.json$/, LeanIndexGraphSchema],
  [/^verticals\/[^/]+\/nodes\/[^/.]+(\.locked)?\.json$/, NodeResponseSchema],
  [/^verticals\/[^/]+\/nodes\/[^/.]+(\.locked)?\.lean\.json$/, LeanNodeResponseSchema],
  [/^search\/[^/]+\.json$/, SearchIndexSchema],
];

let dataDir: string;
beforeAll(async () => {
  const tmp = createTempDir();
  const result = await buildContent({ contentDir: materializeFixture(tmp, "basic-v2"), outDir: join(tmp, "dist"), rootDir: tmp });
  expect(result.ok).toBe(true);
  dataDir = result.dataDir!;
});

describe("contract: built artifacts", () => {
  it("every file validates against its runtime/shared/schema shape", () => {
    const checks = SCHEMAS.map(([re, schema]) => [re, compileSchema(schema)] as const);
    const files = _listFiles(dataDir);
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const matching = checks.filter(([re]) => re.test(file));
      expect(matching, file).toHaveLength(1);
      expect(matching[0]![1](JSON.parse(readFileSync(join(dataDir, file), "utf8"))), file).toEqual([]);
    }
  });

  it("lean node files are strictly node + next_nodes (no wrapper leaks)", () => {
    for (const file of _listFiles(dataDir).filter((f) => f.endsWith(".lean.json") && f.includes("/nodes/"))) {
      expect(Object.keys(JSON.parse(readFileSync(join(dataDir, file), "utf8"))).sort(), file).toEqual(["next_nodes", "node"]);
    }
  });
});

function _listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? _listFiles(join(dir, e.name), base) : [relative(base, join(dir, e.name))]))
    .sort();
}
