/**
 * `vkr` runs from a bundle (build/bundle-cli.ts, like the server's), so a command
 * does not compile TypeScript first. On a clean clone (no dist/cli yet) bin/vkr.mjs bundles it
 * once and runs; a stale bundle is bundled again; each command is a chunk of its own, so `vkr
 * status` loads neither the content build nor markdown. No timing is asserted: the figures are in
 * docs/operations.md.
 */
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleCli } from "../../build/bundle-cli.ts";
import { peopleFixtureDist } from "./_fixture.ts";

/** A clone as `npm ci` leaves it: the sources and node_modules, no dist/. */
let clone: string;
const state = mkdtempSync(join(tmpdir(), "vkr-cli-bundle-state-"));

function vkr(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(clone, "bin", "vkr.mjs"), ...args],
      { env: { PATH: process.env.PATH ?? "", DIST_DIR: peopleFixtureDist(), DATA_DIR: state }, timeout: 120_000 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(() => {
  mkdirSync(".tmp", { recursive: true });
  clone = mkdtempSync(join(resolve(".tmp"), "clone-"));
  for (const name of [
    "build",
    "cli",
    "client",
    "runtime",
    "scripts",
    "docs",
    "node_modules",
    "package.json",
    "package-lock.json",
    "README.md",
  ])
    symlinkSync(resolve(name), join(clone, name));
  mkdirSync(join(clone, "bin"));
  copyFileSync(resolve("bin/vkr.mjs"), join(clone, "bin", "vkr.mjs"));
});
afterAll(() => undefined);

describe("the bundled vkr", { timeout: 240_000 }, () => {
  it("bundles itself once on a clean clone, then runs from the bundle", async () => {
    expect(existsSync(join(clone, "dist"))).toBe(false);
    const first = await vkr(["status", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("vkr: bundling the CLI once");
    expect(JSON.parse(first.stdout)).toMatchObject({ ready: true, build_id: expect.any(String) });
    expect(existsSync(join(clone, "dist", "cli", "vkr.mjs"))).toBe(true);

    const again = await vkr(["status", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("bundling");
  });

  it("bundles again when a source is newer than the bundle", async () => {
    const entry = join(clone, "dist", "cli", "vkr.mjs");
    if (!existsSync(entry)) expect((await vkr(["--help"])).code).toBe(0);
    utimesSync(entry, new Date(0), new Date(0));
    const stale = await vkr(["keys", "list", "--json"]);
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.stderr).toContain("vkr: sources changed since the CLI was bundled");
    expect(JSON.parse(stale.stdout)).toEqual({ keys: [] });
  });

  it("loads each command only when it runs: status reaches no content build, markdown or esbuild", async () => {
    const { metafile } = await bundleCli(mkdtempSync(join(resolve(".tmp"), "cli-bundle-")));
    const outputs = metafile.outputs;
    const statusChunk = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === "cli/commands/status.ts")!;
    expect(statusChunk).toBeDefined();
    // What the entry and the status chunk load statically (dynamic imports are other commands).
    const loaded = new Set<string>();
    const visit = (file: string) => {
      for (const input of Object.keys(outputs[file]!.inputs)) loaded.add(input);
      for (const next of outputs[file]!.imports)
        if (next.kind === "import-statement" && outputs[next.path] && !loaded.has(`#${next.path}`))
          loaded.add(`#${next.path}`), visit(next.path);
    };
    visit(Object.keys(outputs).find((o) => outputs[o]!.entryPoint === "cli/main.ts")!);
    visit(statusChunk);
    const reached = [...loaded].filter((f) => !f.startsWith("#"));
    expect(reached).toContain("cli/commands/status.ts");
    expect(
      reached.filter((f) => f.startsWith("build/stages/") || /node_modules\/(unified|remark-|micromark|gray-matter|gpt-tokenizer)/.test(f)),
    ).toEqual([]);
    // The inputs list names the project files a change to must rebundle.
    const inputs = (JSON.parse(readFileSync(join(clone, "dist", "cli", "inputs.json"), "utf8")) as { inputs: string[] }).inputs;
    expect(inputs).toEqual(expect.arrayContaining(["cli/main.ts", "cli/commands/status.ts", "runtime/config.ts", "package-lock.json"]));
  });
});
