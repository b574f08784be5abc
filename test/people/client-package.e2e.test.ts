/**
 * The typed client installs. `npm pack ./client` (which compiles it), install
 * the tarball into a fresh project, and use it there as the README shows: from plain Node (.mjs)
 * against a running server, and from TypeScript with its .d.ts (a wrong path is a type error).
 */
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readmeBlock } from "../helpers/markdown-docs.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";
import { peopleFixtureDist } from "./_fixture.ts";

const NPM_FLAGS = ["--no-audit", "--no-fund", "--loglevel=error"];
let svc: TestService;
let project: string;

beforeAll(async () => {
  svc = await startTestService(peopleFixtureDist());
  const packed = mkdtempSync(join(tmpdir(), "vkr-client-pack-"));
  execFileSync("npm", ["pack", "./client", "--pack-destination", packed, ...NPM_FLAGS], { stdio: "pipe" });
  const [tarball] = readdirSync(packed).filter((f) => f.endsWith(".tgz"));
  project = mkdtempSync(join(tmpdir(), "vkr-client-project-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-agent", private: true, type: "module" }));
  // openapi-fetch comes from the npm cache `npm ci` filled; nothing else is needed.
  execFileSync("npm", ["install", join(packed, tarball!), "--prefer-offline", ...NPM_FLAGS], { cwd: project, stdio: "pipe" });
}, 180_000);
afterAll(() => svc?.close());

describe("the client package", { timeout: 120_000 }, () => {
  it("imports from plain Node and calls the service", async () => {
    writeFileSync(
      join(project, "try.mjs"),
      `import { createClient } from "vertical-knowledge-retrieval-client";
const api = createClient({ baseUrl: process.env.BASE_URL });
const { data, error } = await api.GET("/api/demo", { params: { query: { vertical: "travel", lean: true } } });
console.log(JSON.stringify(error ?? { vertical: data.vertical, nodes: data.nodes.length }));
`,
    );
    // Not execFileSync: the server runs in this process and must keep answering meanwhile.
    const { stdout } = await promisify(execFile)(process.execPath, ["try.mjs"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "", BASE_URL: svc.url },
      encoding: "utf8",
    });
    expect(JSON.parse(stdout)).toEqual({ vertical: "travel", nodes: 7 });
  });

  it("ships .d.ts: a TypeScript project type-checks against it, and a wrong path is an error", () => {
    writeFileSync(
      join(project, "check.ts"),
      `import { createClient, type paths } from "vertical-knowledge-retrieval-client";
const api = createClient({ baseUrl: "http://127.0.0.1:8787", key: "svc_trial_x" });
export async function demo(): Promise<string | undefined> {
  const { data } = await api.GET("/api/status");
  // @ts-expect-error: not an operation of the service
  await api.GET("/api/no-such-route");
  return data?.api_version;
}
export type Status = paths["/api/status"];
`,
    );
    const tsc = resolve("node_modules", "typescript", "bin", "tsc");
    const run = () =>
      execFileSync(
        process.execPath,
        [
          tsc,
          "--noEmit",
          "--strict",
          "--module",
          "nodenext",
          "--moduleResolution",
          "nodenext",
          "--target",
          "es2022",
          "--lib",
          "es2023,dom",
          "check.ts",
        ],
        { cwd: project, encoding: "utf8" },
      );
    expect(run).not.toThrow();
  });

  it("runs the README's TypeScript example as written, narrowing the /api/demo answer", async () => {
    // The README imports the package by its in-repository name; installed, it is the client package.
    const source = readmeBlock("client-ts")
      .replace('"vertical-knowledge-retrieval/client"', '"vertical-knowledge-retrieval-client"')
      .replace('"http://127.0.0.1:8787"', "process.env.BASE_URL!");
    expect(source).toContain('"vertical-knowledge-retrieval-client"');
    writeFileSync(join(project, "readme.ts"), source);
    const tsc = resolve("node_modules", "typescript", "bin", "tsc");
    execFileSync(
      process.execPath,
      [
        tsc,
        "--strict",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        "--lib",
        "es2023,dom",
        "--typeRoots",
        resolve("node_modules", "@types"),
        "--types",
        "node",
        "--outDir",
        "out",
        "readme.ts",
      ],
      { cwd: project, encoding: "utf8" },
    );
    const real = await startTestService(resolve("dist"));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ["out/readme.js"], {
        cwd: project,
        env: { PATH: process.env.PATH ?? "", BASE_URL: real.url },
        encoding: "utf8",
      });
      // Without a key the node's free view: its title, and only the index layer's fields.
      expect(stdout).toMatch(/^Start here: AI Act triage/);
    } finally {
      await real.close();
    }
  });
});
