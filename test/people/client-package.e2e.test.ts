/**
 * The typed client installs as the README says: `npm pack ./client` (which compiles it), install
 * the tarball into an empty project, and use it there: from plain Node (.mjs) against a running
 * server, and from TypeScript with its .d.ts (a wrong path is a type error). The README's
 * `client-ts` block is type-checked and run there as written, with a real key.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
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
  // openapi-fetch, typescript and @types/node come from the npm cache the repository's install
  // filled (the versions it uses), as a TypeScript project installs them with the client. One
  // install for all three: a second npm run costs seconds of CPU and proves nothing more.
  const devTypes = ["typescript", "@types/node"].map((name) => `${name}@${repoVersion(name)}`);
  execFileSync("npm", ["install", join(packed, tarball!), ...devTypes, "--prefer-offline", ...NPM_FLAGS], { cwd: project, stdio: "pipe" });
}, 180_000);
afterAll(() => svc?.close());

function repoVersion(name: string): string {
  return (JSON.parse(readFileSync(resolve("node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

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
    expect(() => tsc("--noEmit", "check.ts")).not.toThrow();
  });

  it("runs the README's TypeScript block verbatim with a real key, narrowing the /api/demo answer", async () => {
    const block = readmeBlock("client-ts");
    writeFileSync(join(project, "readme.ts"), block);
    tsc("--outDir", "out", "readme.ts");
    const real = await startTestService(resolve("dist"));
    try {
      const trial = await fetch(`${real.url}/api/trial`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ agent_id: "client-readme-agent" }),
      });
      const { key } = (await trial.json()) as { key: string };
      expect(key).toMatch(/^svc_trial_/);
      const { stdout } = await promisify(execFile)(process.execPath, ["out/readme.js"], {
        cwd: project,
        env: { PATH: process.env.PATH ?? "", BASE: real.url, SERVICE_KEY: key },
        encoding: "utf8",
      });
      // The key unlocks the node's layers (the free view holds its index fields only).
      expect(stdout).toBe("Start here: AI Act triage (which regime applies) [ 'action', 'directive', 'logic', 'skill' ]\n");
    } finally {
      await real.close();
    }
  });
});

/** The project's own TypeScript (installed beside the client), strict, as Node resolves packages. */
function tsc(...args: string[]): string {
  const bin = join(project, "node_modules", "typescript", "bin", "tsc");
  const options = ["--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022"];
  try {
    return execFileSync(process.execPath, [bin, ...options, "--lib", "es2023,dom", "--types", "node", ...args], {
      cwd: project,
      encoding: "utf8",
    });
  } catch (error) {
    // tsc reports on stdout: make its diagnostics the failure's message.
    throw new Error(`tsc ${args.join(" ")}:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
  }
}
