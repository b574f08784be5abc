/** digest.ts and write.ts: canonical JSON, sha256, staged output that aborts cleanly. */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sha256, shortDigest, toCanonicalJson } from "../../build/digest.ts";
import { createStagedOutput } from "../../build/write.ts";
import { createTempDir } from "./_fixtures.ts";

describe("digest", () => {
  it("sorts keys at every depth, keeps array order, drops undefined", () => {
    expect(toCanonicalJson({ b: 1, a: { d: [3, 1], c: undefined } })).toBe('{"a":{"d":[3,1]},"b":1}\n');
  });

  it("hashes", () => {
    expect(sha256("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(shortDigest("")).toBe("e3b0c44298fc1c14");
  });
});

describe("write", () => {
  it("abort removes the staging folder and publishes nothing", () => {
    const out = join(createTempDir(), "dist");
    const staged = createStagedOutput(out);
    staged.write("a/b.json", "{}\n");
    staged.abort();
    expect(existsSync(join(out, "data"))).toBe(false);
    expect(readdirSync(join(out, ".builds"))).toEqual([]);
  });

  it("moves a legacy real data folder aside on first publish", async () => {
    const out = join(createTempDir(), "dist");
    const { mkdirSync, writeFileSync, lstatSync, readFileSync } = await import("node:fs");
    mkdirSync(join(out, "data"), { recursive: true });
    writeFileSync(join(out, "data", "old.json"), "old");
    const staged = createStagedOutput(out);
    staged.write("new.json", "new");
    expect(staged.commit("b1").changed).toBe(true);
    expect(lstatSync(join(out, "data")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(out, "data", "new.json"), "utf8")).toBe("new");
  });
});

describe("toCanonicalJson matches JSON.stringify with sorted keys", () => {
  it("on awkward values", () => {
    const sortKeys = (_k: string, v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, (v as Record<string, unknown>)[k]]),
          )
        : v;
    const samples: unknown[] = [
      { z: 'ü \u2028 "q" \n', a: [1, -0.5, 1e21, null, undefined, { y: [], x: {} }], m: { b: true, a: false, c: undefined }, é: 0 },
      [],
      {},
      "s",
      3,
      [[[]], [{}]],
    ];
    for (const s of samples) expect(toCanonicalJson(s)).toBe(JSON.stringify(s, sortKeys) + "\n");
  });
});
