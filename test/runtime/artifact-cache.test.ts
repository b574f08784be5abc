/**
 * The in-memory artifact cache is bounded: beyond its byte budget the least recently used
 * artifact is dropped and read again on its next request, so a large build cannot fill memory.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Artifacts, readArtifacts } from "../../runtime/state/releases/artifacts.ts";
import { buildContentTo } from "../helpers/build-fixture.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";

let dataDir: string;
beforeAll(() => {
  dataDir = join(buildContentTo(writeFixtureContent()), "data");
});

async function open(cacheBytes: number): Promise<{ build: Artifacts; reads: string[]; nodes: Array<[string, string]> }> {
  const reads: string[] = [];
  const build = await readArtifacts(
    async (rel) => {
      reads.push(rel);
      return readFile(join(dataDir, rel));
    },
    { cacheBytes },
  );
  const nodes = Object.entries(build.manifest.verticals).flatMap(([v, x]) => Object.keys(x.nodes).map((id) => [v, id] as [string, string]));
  return { build, reads, nodes };
}

const countOf = (reads: string[], id: string) => reads.filter((r) => r.endsWith(`/${id}.json`)).length;

describe("artifact cache", () => {
  it("keeps every artifact read when the budget allows", async () => {
    const { build, reads, nodes } = await open(64 * 1024 * 1024);
    const [a, b] = nodes;
    for (let i = 0; i < 3; i++) for (const [v, id] of [a!, b!]) await build.node(v, id, "full");
    expect(countOf(reads, a![1])).toBe(1);
    expect(countOf(reads, b![1])).toBe(1);
  });

  it("drops the least recently used artifact beyond the budget and reads it again", async () => {
    const probe = await open(64 * 1024 * 1024);
    const [a, b, c] = probe.nodes;
    const sizes = await Promise.all(
      [a!, b!, c!].map(([v, id]) => Promise.resolve(probe.build.node(v, id, "full")).then((x) => x.bytes.byteLength)),
    );
    // One byte short of holding all three.
    const { build, reads } = await open(sizes[0]! + sizes[1]! + sizes[2]! - 1);
    const get = ([v, id]: [string, string]) => build.node(v, id, "full");
    await get(a!);
    await get(b!);
    await get(a!); // a is now the most recently used
    await get(c!); // over budget: b, the least recently used, goes
    await get(a!);
    expect(countOf(reads, a![1])).toBe(1);
    await get(b!);
    expect(countOf(reads, b![1])).toBe(2);
    const again = await get(c!);
    expect(again.bytes.byteLength).toBe(sizes[2]);
  });
});
