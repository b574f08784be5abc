/**
 * The production install path: `npm run release` makes a tarball; unpacked into an empty folder
 * outside the project (so nothing resolves from the project's node_modules), it serves over real
 * HTTP and runs `vkr` with no TypeScript, tsx or esbuild anywhere it could load them from. The
 * content is the build the global setup made; the bundles and packages are the release's own.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeRelease, type ReleaseResult } from "../../scripts/release.ts";
import { freePort } from "../helpers/child-server.ts";

const ADMIN_KEY = "release-test-admin-key-0123456789";
const BUILD_TOOLS = ["typescript", "tsx", "esbuild", "vitest", "@types/node"];

const scratch = mkdtempSync(join(tmpdir(), "vkr-release-"));
let release: ReleaseResult;
let app: string;
let server: ChildProcess | undefined;
let output = "";

beforeAll(async () => {
  release = await makeRelease({ outDir: join(scratch, "out"), distDir: "dist", buildContent: false, release: false });
  const target = join(scratch, "install");
  spawnSync("mkdir", ["-p", target]);
  const unpacked = spawnSync("tar", ["-xzf", release.tarball, "-C", target], { encoding: "utf8" });
  expect(unpacked.status, unpacked.stderr).toBe(0);
  const [folder] = readdirSync(target);
  app = join(target, folder!);
}, 600_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((done) => server!.once("exit", done));
    server.kill("SIGKILL");
    await exited;
  }
  spawnSync("rm", ["-rf", scratch]);
}, 120_000);

function vkr(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(app, "bin", "vkr.mjs"), ...args],
      { cwd: app, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 120_000 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("a release tarball unpacked into an empty folder", { timeout: 180_000 }, () => {
  it("is named for its version, platform and Node ABI and holds the bundles, the build and the native addon", () => {
    expect(release.tarball).toMatch(
      new RegExp(
        `vertical-knowledge-retrieval-\\d+\\.\\d+\\.\\d+-${process.platform}-${process.arch}-abi${process.versions.modules}\\.tgz$`,
      ),
    );
    for (const file of [
      "dist/server/index.mjs",
      "dist/cli/vkr.mjs",
      "dist/data/manifest.json",
      "bin/vkr.mjs",
      "package.json",
      "package-lock.json",
      "node_modules/better-sqlite3/build/Release/better_sqlite3.node",
      "node_modules/ioredis/package.json",
      "node_modules/swagger-ui-dist/swagger-ui-bundle.js",
    ])
      expect(existsSync(join(app, file)), file).toBe(true);
    // The development signing key the build keeps beside its output is a private key: never shipped.
    expect(existsSync(join(app, "dist", ".dev-signing-key.json"))).toBe(false);
    // Nor the sources a checkout bundles from.
    for (const folder of ["runtime", "build", "cli", "content", "test"]) expect(existsSync(join(app, folder)), folder).toBe(false);
  });

  it("has no TypeScript, tsx or esbuild, installed or resolvable from its folder", () => {
    const resolveFromApp = createRequire(join(app, "package.json"));
    for (const tool of BUILD_TOOLS) {
      expect(existsSync(join(app, "node_modules", tool)), tool).toBe(false);
      expect(() => resolveFromApp.resolve(`${tool}/package.json`), tool).toThrow();
    }
    // The production packages the bundle leaves external are there and load.
    expect(resolveFromApp.resolve("better-sqlite3")).toContain(join(app, "node_modules"));
    expect(resolveFromApp.resolve("ioredis")).toContain(join(app, "node_modules"));
  });

  it("starts with `node dist/server/index.mjs` and serves status, docs and a metered node read", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ["dist/server/index.mjs"], {
      cwd: app,
      // Only what an operator sets: DIST_DIR is left to its default, ./dist of the unpacked folder.
      env: {
        PATH: process.env.PATH ?? "",
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: join(scratch, "state"),
        ADMIN_KEY,
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stdout!.on("data", (d) => (output += d));
    server.stderr!.on("data", (d) => (output += d));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`server exited early:\n${output}`);
      const ready = await fetch(`${url}/readyz`).catch(() => null);
      if (ready?.ok) {
        expect(await ready.json()).toMatchObject({ build_id: release.buildId });
        break;
      }
      if (Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    const status = await fetch(`${url}/api/status`);
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ object: "system_status" });

    // Swagger UI is read from node_modules at run time, not bundled.
    const docs = await fetch(`${url}/docs/assets/swagger-ui-bundle.js`);
    expect(docs.status).toBe(200);
    expect((await docs.text()).length).toBeGreaterThan(100_000);

    // A key issued into the embedded store (the better-sqlite3 addon) reads a node, metered.
    const issued = await fetch(`${url}/api/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ vertical: "travel", label: "release-test" }),
    });
    expect(issued.status, output).toBe(201);
    const { keys } = (await issued.json()) as { keys: Array<{ key: string }> };
    const node = readdirSync(join(app, "dist", "data", "verticals", "travel", "nodes"))
      .find((f) => f.endsWith(".lean.json"))!
      .replace(/\.lean\.json$/, "");
    const read = await fetch(`${url}/api/demo?vertical=travel&node=${node}`, { headers: { "x-service-key": keys[0]!.key } });
    expect(read.status).toBe(200);
    expect(await read.text()).toContain(node);

    const exited = new Promise<number | null>((done) => server!.once("exit", (code) => done(code)));
    server.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("runs `vkr` from its bundle, with no sources and no tsx to bundle them", async () => {
    const help = await vkr(["--help"], {});
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain("USAGE vkr");
    expect(help.stderr).not.toContain("bundling");

    const status = await vkr(["status", "--json"], { DATA_DIR: join(scratch, "cli-state") });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ ready: true, build_id: release.buildId, store: { kind: "sqlite", ok: true } });

    // The content build runs from the sources through tsx: refused in words, not with a stack trace.
    const build = await vkr(["build"], {});
    expect(build.code).toBe(1);
    expect(build.stderr).toContain("an install without the sources");
  });
});
