/**
 * The whole build on fixtures: output layout, determinism (two builds → identical bytes),
 * atomic publish, and the CLI's exit code and message on broken content. One case runs
 * build/cli.ts as `npm run build:content` does (a child under tsx: its exit code and output); the
 * others call what it runs, `buildAndReport` (build/build-report.ts), in this process, whose build
 * modules this file has loaded already: a child costs about 4 s of CPU loading them through tsx.
 */
import { spawnSync } from "node:child_process";
import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildAndReport } from "../../build/build-report.ts";
import { buildContent, createBuildCache } from "../../build/index.ts";
import { exportPrivateJwk, generateSigningKey } from "../../runtime/shared/signing-keys.ts";
import { createTempDir, materializeFixture, REPO_ROOT } from "./_fixtures.ts";

describe("pipeline", () => {
  // One plain build of the basic fixture, read (never changed) by the cases that only look at it.
  let tmp: string;
  let contentDir: string;
  let result: Awaited<ReturnType<typeof buildContent>>;
  beforeAll(async () => {
    tmp = createTempDir();
    contentDir = materializeFixture(tmp);
    result = await buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp });
  });

  it("emits the documented dist/data layout", () => {
    expect(result.ok).toBe(true);
    expect(result.issues).toEqual([]);
    expect(result.stats).toMatchObject({ nodes: 6, verticals: 2 });
    const files = _listFiles(join(tmp, "dist", "data"));
    expect(files.filter((f) => !f.includes("/nodes/"))).toEqual([
      "catalog.json",
      "changelog.json",
      "manifest.json",
      "search/travel.json",
      "search/traversal.json",
      "status.json",
      "verticals/travel/index.json",
      "verticals/travel/index.lean.json",
      "verticals/traversal/index.json",
      "verticals/traversal/index.lean.json",
    ]);
    expect(files.filter((f) => f.startsWith("verticals/travel/nodes/trv-start"))).toEqual([
      "verticals/travel/nodes/trv-start.json",
      "verticals/travel/nodes/trv-start.lean.json",
      "verticals/travel/nodes/trv-start.locked.json",
      "verticals/travel/nodes/trv-start.locked.lean.json",
    ]);
    expect(files).toHaveLength(10 + 6 * 4);
  });

  it("is deterministic: two builds of the same content with the same signing key are byte-identical", async () => {
    const a = createTempDir();
    const b = createTempDir();
    // Ed25519 signatures are deterministic; a development key is made per output folder, so the key is given here.
    const signingKey = exportPrivateJwk(generateSigningKey());
    const first = await buildContent({ contentDir: materializeFixture(a), outDir: join(a, "dist"), rootDir: a, signingKey });
    const second = await buildContent({ contentDir: materializeFixture(b), outDir: join(b, "dist"), rootDir: b, signingKey });
    expect(second.buildId).toBe(first.buildId);
    const files = _listFiles(join(a, "dist", "data"));
    expect(_listFiles(join(b, "dist", "data"))).toEqual(files);
    for (const f of files)
      expect(readFileSync(join(b, "dist", "data", f), "utf8"), f).toBe(readFileSync(join(a, "dist", "data", f), "utf8"));
  });

  it("in memory (write: false) emits the same bytes as on disk", async () => {
    const memory = await buildContent({ contentDir, outDir: join(tmp, "dist"), rootDir: tmp, write: false });
    expect(memory.buildId).toBe(result.buildId);
    expect(memory.files!.get("catalog.json")).toBe(readFileSync(join(tmp, "dist", "data", "catalog.json"), "utf8"));
  });

  it("publishes atomically: data is a symlink swapped to the new build; an unchanged build republishes nothing", async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    const options = { contentDir, outDir: join(tmp, "dist"), rootDir: tmp };
    const v1 = await buildContent(options);
    expect(lstatSync(join(tmp, "dist", "data")).isSymbolicLink()).toBe(true);
    expect(statSync(join(tmp, "dist", ".builds", v1.buildId!)).isDirectory()).toBe(true);
    expect((await buildContent(options)).changed).toBe(false);

    materializeFixture(tmp, "basic-v2");
    const v2 = await buildContent(options);
    expect(v2).toMatchObject({ ok: true, changed: true });
    expect(v2.buildId).not.toBe(v1.buildId);
    const manifest = JSON.parse(readFileSync(join(tmp, "dist", "data", "manifest.json"), "utf8"));
    expect(manifest.build_id).toBe(v2.buildId);
    // The previous build is kept for readers still inside it; no temp folders are left behind.
    expect(readdirSync(join(tmp, "dist", ".builds")).sort()).toEqual([v1.buildId, v2.buildId].sort());
  });

  it("incremental: with a cache, unchanged node files are hard-linked from the previous build, which stays intact", async () => {
    const tmp = createTempDir();
    const cache = createBuildCache();
    const options = { contentDir: materializeFixture(tmp), outDir: join(tmp, "dist"), rootDir: tmp, cache };
    const v1 = await buildContent(options);
    const v1Dir = join(tmp, "dist", ".builds", v1.buildId!);
    const v1Compensation = readFileSync(join(v1Dir, "verticals/travel/nodes/trv-compensation.json"), "utf8");
    materializeFixture(tmp, "basic-v2");
    const v2 = await buildContent(options);
    const v2Dir = join(tmp, "dist", ".builds", v2.buildId!);
    const inode = (dir: string, f: string) => statSync(join(dir, "verticals", f)).ino;
    expect(inode(v2Dir, "traversal/nodes/nav-start.json")).toBe(inode(v1Dir, "traversal/nodes/nav-start.json"));
    expect(inode(v2Dir, "travel/nodes/trv-compensation.json")).not.toBe(inode(v1Dir, "travel/nodes/trv-compensation.json"));
    expect(readFileSync(join(v1Dir, "verticals/travel/nodes/trv-compensation.json"), "utf8")).toBe(v1Compensation);
    // Same bytes as a build without any cache.
    const fresh = await buildContent({ ...options, cache: undefined, write: false });
    expect(fresh.buildId).toBe(v2.buildId);
  });

  it("manifest lists every other file with its sha256", async () => {
    const data = join(tmp, "dist", "data");
    const manifest = JSON.parse(readFileSync(join(data, "manifest.json"), "utf8"));
    expect(Object.keys(manifest.files).sort()).toEqual(_listFiles(data).filter((f) => f !== "manifest.json"));
    const { createHash } = await import("node:crypto");
    for (const [path, digest] of Object.entries(manifest.files)) {
      expect(
        createHash("sha256")
          .update(readFileSync(join(data, path)))
          .digest("hex"),
      ).toBe(digest);
    }
    expect(manifest).toMatchObject({ api_version: "0.9.23", content_date: "2026-11-05T10:00:00Z", node_count: 6 });
    expect(manifest.verticals.travel.nodes["trv-start"]).toMatchObject({ order: 1, trial: true, status: "active" });
    expect(manifest.lean_ratio).toBeGreaterThan(0);
    expect(manifest.lean_ratio).toBeLessThan(1);
  });

  // A CLI child (a fresh Node with tsx): on a busy machine longer than the default 30 s.
  it("CLI: a broken file exits 1 naming file:line, and leaves the previous dist intact", { timeout: 120_000 }, async () => {
    const tmp = createTempDir();
    const contentDir = materializeFixture(tmp);
    const outDir = join(tmp, "dist");
    const cli = (args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", "build/cli.ts", "--content", contentDir, "--out", outDir, ...args], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      });
    // The good build in this process (what build/cli.ts runs), the broken one through the CLI.
    const ok = await _report({ contentDir, outDir });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/built 6 nodes in 2 verticals in \d+ ms; mean lean\/full size \d+\.\d%/);
    const before = readFileSync(join(outDir, "data", "manifest.json"), "utf8");

    materializeFixture(tmp, "invalid/link_dangling");
    const failed = cli([]);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toContain('content/travel/trv-care.md:6 next_nodes[1]: unknown node "visa-chek"');
    expect(failed.stdout).toContain("build failed");
    expect(readFileSync(join(outDir, "data", "manifest.json"), "utf8")).toBe(before);
    expect(readdirSync(join(outDir, ".builds")).filter((d) => d.startsWith("tmp-"))).toEqual([]);
  });

  it("CLI: a missing content folder is a clear failure, not a stack trace", async () => {
    const run = await _report({ contentDir: join(createTempDir(), "nope") });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^build failed: .*nope/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

// --- Internal helpers ---

/** build/cli.ts's build without its child: `buildAndReport`'s exit code and what it printed. */
async function _report(options: { contentDir: string; outDir?: string }): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const status = await buildAndReport({ ...options }, process.env, {
    log: (line) => void (stdout += `${line}\n`),
    error: (line) => void (stderr += `${line}\n`),
  });
  return { status, stdout, stderr };
}

function _listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? _listFiles(join(dir, e.name), base) : [relative(base, join(dir, e.name))]))
    .sort();
}
