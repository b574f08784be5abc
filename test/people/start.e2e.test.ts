/**
 * `npm start` (scripts/start.ts) in a project folder builds the content only
 * when it changed (a digest, not file times), and a broken node does not stop it: it prints the
 * build's report and one paragraph, without a stack trace, and serves the last good build.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { readmeBlock } from "../helpers/markdown-docs.ts";

/** A project as a person has it: the repo's code, its own content/ and dist/. */
let project: string;
let running: { proc: ChildProcess; output: () => string } | undefined;
/** The build the first case served: the last good build the broken-node case expects (started again only when that case runs alone). */
let goodBuild: string | undefined;

beforeAll(() => {
  // Inside the repo, so the bundle's external native packages resolve from node_modules.
  mkdirSync(".tmp", { recursive: true });
  project = mkdtempSync(join(process.cwd(), ".tmp", "start-"));
  for (const name of ["build", "runtime", "scripts", "node_modules", "package.json", "tsconfig.json"])
    symlinkSync(resolve(name), join(project, name));
  writeFixtureContent(join(project, "content"));
});
afterEach(async () => {
  if (running?.proc.pid && running.proc.exitCode === null) {
    const exited = new Promise((r) => running!.proc.once("exit", r));
    process.kill(-running.proc.pid, "SIGTERM");
    await exited;
  }
  running = undefined;
});

/** Runs `npm start`'s script in the project until /readyz answers; returns the served build id and the output. */
async function start(): Promise<{ buildId: string; output: string }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: project,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: join(project, "state"), LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  proc.stdout!.on("data", (d) => (output += d));
  proc.stderr!.on("data", (d) => (output += d));
  running = { proc, output: () => output };
  for (const deadline = Date.now() + 90_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (proc.exitCode !== null) throw new Error(`npm start exited with ${proc.exitCode}:\n${output}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => (r.ok ? (r.json() as Promise<{ build_id: string }>) : null),
      () => null,
    );
    if (ready) return { buildId: ready.build_id, output };
  }
  throw new Error(`npm start did not get ready:\n${output}`);
}

const STACK_LINE_RE = /^\s+at .+[:(]\d+:\d+\)?$/m;

describe("npm start", () => {
  it("is the README's first command, and the second is what CI runs", () => {
    const [start, test] = readmeBlock("two-commands")
      .split("\n")
      .map((line) => line.replace(/\s+#.*$/, ""));
    expect([start, test]).toEqual(["npm ci && npm start", "npm ci && npm test"]);
    // `npm start` is the script this suite runs (with PORT, as the README says), `npm test` the one .ci/run runs after npm ci.
    const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.start).toBe("tsx scripts/start.ts");
    expect(readFileSync(".ci/run", "utf8")).toMatch(/^npm ci\b.*\nnpm test$/m);
  });

  it("builds a fresh project, then starts again without building content that did not change (only its file times did)", async () => {
    const first = await start();
    expect(first.output).toMatch(/built \d+ nodes/);
    // Production start never creates or prints the dev key of `npm run dev`.
    expect(first.output).not.toMatch(/svc_live_|local key/);
    expect(existsSync(join(project, "state", "dev-key"))).toBe(false);
    await new Promise<void>((r) => (process.kill(-running!.proc.pid!, "SIGTERM"), running!.proc.once("exit", () => r())));
    // A checkout, a save without edits or an edit and its revert: newer times, the same bytes.
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(project, "content", "travel", "trv-m2.md"), later, later);

    const second = await start();
    expect(second.buildId).toBe(first.buildId);
    expect(second.output).not.toMatch(/built \d+ nodes/);
    goodBuild = second.buildId;
  }, 180_000);

  it("with a broken node: one clear paragraph, no stack trace, and the last good build is served", async () => {
    // The case above left the project's good build in dist/; a third start to read its id would prove nothing more.
    let good = goodBuild;
    if (good === undefined) {
      good = (await start()).buildId;
      await new Promise<void>((r) => (process.kill(-running!.proc.pid!, "SIGTERM"), running!.proc.once("exit", () => r())));
    }

    const file = join(project, "content", "travel", "trv-m3.md");
    writeFileSync(file, readFileSync(file, "utf8").replace("next_nodes: [trv-m4]", "next_nodes: [trv-m4, trv-missing]"));
    const broken = await start();
    expect(broken.buildId).toBe(good);
    expect(broken.output).toContain("trv-missing");
    expect(broken.output).toMatch(/last good build/);
    expect(broken.output).not.toMatch(STACK_LINE_RE);
  }, 180_000);
});
