/** Stage link: trial flags from the catalogue, deprecated nodes exempt from reachability. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContent } from "../../build/index.ts";
import { createTempDir, materializeFixture } from "./_fixtures.ts";

async function build(...overlays: string[]) {
  const tmp = createTempDir();
  return buildContent({ contentDir: materializeFixture(tmp, ...overlays), outDir: join(tmp, "dist"), rootDir: tmp, write: false });
}

describe("link", () => {
  it("marks the first N active nodes by order as trial ({ first: 2 }); fully open verticals have none", async () => {
    const result = await build();
    const travel = JSON.parse(result.files!.get("verticals/travel/index.json")!);
    expect(travel.nodes.map((n: { id: string; trial: boolean }) => `${n.id}:${n.trial}`)).toEqual([
      "trv-start:true",
      "trv-compensation:true",
      "trv-care:false",
      "trv-claims:false",
    ]);
    const traversal = JSON.parse(result.files!.get("verticals/traversal/index.json")!);
    expect(traversal.nodes.every((n: { trial: boolean }) => !n.trial)).toBe(true);
  });

  it("a deprecated node may be unlinked; it stays in the index with its status", async () => {
    const result = await build("basic-v2");
    expect(result.ok).toBe(true);
    const index = JSON.parse(result.files!.get("verticals/travel/index.json")!);
    expect(index.nodes.find((n: { id: string }) => n.id === "trv-claims")).toMatchObject({ status: "deprecated", order: 4 });
  });
});
