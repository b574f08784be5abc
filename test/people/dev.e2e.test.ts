/**
 * `npm run dev` (scripts/dev.ts) rebuilds on save, reloads the running server's build
 * and browse site without restarting it, and prints content problems with file and line while
 * the previous build keeps serving.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { type Dirent, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";

let proc: ChildProcess;
let output = "";
let url: string;
let content: string;
let out: string;
let state: string;

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 150))) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}; output:\n${output.slice(-3000)}`);
}

const json = async (path: string, init?: RequestInit) => (await fetch(url + path, init)).json() as Promise<any>;

beforeAll(async () => {
  content = writeFixtureContent();
  out = mkdtempSync(join(tmpdir(), "vkr-dev-dist-"));
  state = mkdtempSync(join(tmpdir(), "vkr-dev-state-"));
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  proc = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts", "--content", content, "--out", out], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: state, LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  proc.stdout!.on("data", (d) => (output += d));
  proc.stderr!.on("data", (d) => (output += d));
  await until("the dev server", async () => ((await fetch(`${url}/readyz`)).ok ? true : undefined), 60_000);
});
afterAll(async () => {
  if (proc?.pid && proc.exitCode === null) {
    const exited = new Promise((r) => proc.once("exit", r));
    process.kill(-proc.pid, "SIGTERM");
    await exited;
  }
});

describe("npm run dev", () => {
  it("prints a local key that opens every vertical, kept in the dev store only", async () => {
    const key = await until("the dev key", async () => /export KEY=(svc_live_\w+)/.exec(output)?.[1]);
    // Gated nodes of every kind: a travel module outside the trial's five, real estate, a paid vertical without a free index.
    for (const [vertical, node] of [
      ["travel", "trv-m7"],
      ["real-estate", "re-two"],
      ["ai-compliance", "aic-second"],
      ["legal", "legal-one"],
    ]) {
      const res = await json(`/api/demo?vertical=${vertical}&node=${node}`, { headers: { "x-service-key": key } });
      expect(res.node.locked_layers, `${vertical}/${node}`).toEqual([]);
    }
    const evaluated = await fetch(`${url}/api/evaluate`, {
      method: "POST",
      headers: { "x-service-key": key, "content-type": "application/json" },
      body: JSON.stringify({ vertical: "travel", node: "trv-m1", facts: {} }),
    });
    expect(evaluated.status).toBe(200);
    expect((await json("/api/keys", { headers: { "x-service-key": key } })).label).toBe("dev");
    // Kept beside the dev store, readable by its owner only; never written into the build.
    const kept = join(state, "dev-key");
    expect(readFileSync(kept, "utf8").trim()).toBe(key);
    expect(statSync(kept).mode & 0o077).toBe(0);
    const files = (readdirSync(out, { recursive: true, withFileTypes: true }) as Dirent[])
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => readFileSync(f, "utf8").includes(key))).toEqual([]);
  });

  it("reloads the running server's graph and pages on save, keeping its state", async () => {
    const first = (await json("/readyz")).build_id as string;
    const trial = (
      await json("/api/trial", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ agent_id: "dev-suite", vertical: "travel" }),
      })
    ).key as string;
    const file = join(content, "travel", "trv-m2.md");
    writeFileSync(file, readFileSync(file, "utf8").replace("title: Fixture node trv-m2", "title: Renamed module two"));

    const title = await until("the new title over the API", async () => {
      const node = await json("/api/demo?vertical=travel&node=trv-m2");
      return node.node.title === "Renamed module two" ? node.node.title : undefined;
    });
    expect(title).toBe("Renamed module two");
    expect((await json("/readyz")).build_id).not.toBe(first);
    expect(await (await fetch(`${url}/browse/travel/trv-m2`)).text()).toContain("Renamed module two");
    // Same process, same state: the trial key issued before the rebuild still works.
    expect((await json("/api/verify", { headers: { "x-service-key": trial } })).valid).toBe(true);
  });

  it("keeps rebuilding after atomic saves: two `sed -i` edits in a row both reach the server", async () => {
    const file = join(content, "travel", "trv-m4.md");
    for (const title of ["Module four, first save", "Module four, second save"]) {
      // sed -i writes a temp file and renames it over the original, as vim and JetBrains do.
      execFileSync("sed", ["-i", `s/^title: .*$/title: ${title}/`, file]);
      await until(`"${title}" over the API`, async () =>
        (await json("/api/demo?vertical=travel&node=trv-m4")).node.title === title ? true : undefined,
      );
    }
  });

  it("prints problems with file and line, and keeps serving the last good build", async () => {
    const served = (await json("/readyz")).build_id as string;
    const file = join(content, "travel", "trv-m3.md");
    writeFileSync(file, readFileSync(file, "utf8").replace("next_nodes: [trv-m4]", "next_nodes: [trv-m4, trv-missing]"));
    await until("the problem report", async () =>
      /travel\/trv-m3\.md:\d+/.test(output) && output.includes("trv-missing") ? true : undefined,
    );
    expect((await json("/readyz")).build_id).toBe(served);
    expect((await fetch(`${url}/api/demo?vertical=travel&node=trv-m3`)).status).toBe(200);
  });
});
