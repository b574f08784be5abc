/**
 * The real `vkr` binary against the store of a running server (the bundled server as a
 * child process, real clock): create a key, list it by label, revoke it, and see the server refuse it.
 * The key's life, serving, building and publishing run the bin as a user does, and so do one case of
 * each kind of failure (a usage error, a missing key, an unreachable server), which proves the bin
 * passes on the exit code and streams of the command line it runs. The other usage, help and error
 * cases run that same command line in this process (`vkrHere`: cli/run.ts, what the bin's main.ts
 * calls) with the same environment: the same parser, commands, stores and output, without a Node
 * start and the command's modules loaded again per case (about half a second of CPU each).
 */
import { execFile, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildServer, freePort, startChildServer } from "../helpers/child-server.ts";
import { writeFixtureContent } from "../helpers/fixture-content.ts";
import { runVkrInProcess } from "../helpers/run-vkr.ts";
import { peopleFixtureDist } from "./_fixture.ts";

const BIN = join(process.cwd(), "bin", "vkr.mjs");
const releaseKeyPair = generateKeyPairSync("ed25519");
const RELEASE_KEY = releaseKeyPair.privateKey.export({ format: "pem", type: "pkcs8" }).toString();
const RELEASE_PUBLIC_KEY = releaseKeyPair.publicKey.export({ format: "pem", type: "spki" }).toString();
const OTHER_KEY = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();
let server: ChildServer;
let dist: string;
let dataDir: string;

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function vkr(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, DIST_DIR: dist, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** `vkr` in this process (cli/run.ts) with the environment `vkr` above gives the bin. */
function vkrHere(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runVkrInProcess(args, { DATA_DIR: dataDir, DIST_DIR: dist, ...env });
}

beforeAll(async () => {
  dist = peopleFixtureDist();
  dataDir = mkdtempSync(join(tmpdir(), "vkr-cli-state-"));
  server = await startChildServer({ DIST_DIR: dist, DATA_DIR: dataDir, ADMIN_KEY: "cli-test-admin-secret-000" });
});
afterAll(() => server?.kill());

describe("vkr keys", { timeout: 240_000 }, () => {
  it("creates a key, lists it by label, revokes it, and the running server refuses it", async () => {
    const created = await vkr(["keys", "create", "--vertical", "travel", "--label", "cli-suite", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    const [issued] = JSON.parse(created.stdout).keys as Array<{ key: string; id: string; status: string }>;
    expect(issued!.key).toMatch(/^svc_live_/);
    expect(issued!.status).toBe("active");

    const use = (key: string) => fetch(`${server.url}/api/demo?vertical=travel&node=trv-m7`, { headers: { "x-service-key": key } });
    expect((await use(issued!.key)).status).toBe(200);

    const listed = await vkr(["keys", "list", "--label", "cli-suite", "--json"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).keys.map((k: { id: string }) => k.id)).toEqual([issued!.id]);
    expect(listed.stdout).not.toContain(issued!.key);

    const shown = await vkr(["keys", "show", issued!.id, "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: issued!.id, label: "cli-suite", usage: { hour: 1 } });

    const revoked = await vkr(["keys", "revoke", issued!.id, "--json"]);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: issued!.id, status: "revoked" });

    // The server caches resolved keys for up to 1 s; after that the revocation is seen: the node's
    // free locked view with the key's problem, never its layers.
    let refused: Response | undefined;
    for (const deadline = Date.now() + 5_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      refused = await use(issued!.key);
      if (refused.headers.get("credential-problem")) break;
    }
    expect(refused!.headers.get("credential-problem")).toBe("key_revoked");
    expect(((await refused!.json()) as { node: { locked_layers: string[] } }).node.locked_layers).toHaveLength(4);

    const text = await vkr(["keys", "list", "--label", "cli-suite"]);
    expect(text.stdout).toMatch(new RegExp(`${issued!.id}\\s+revoked`));
  });

  it("exits with meaningful codes", async () => {
    // A refused value (exit 4 for --quantity 9) is checked with its words under "strict command lines".
    // The bin for the first (its exit code is the command line's), the rest in this process.
    const [missing, revokeMissing, badVertical, noVertical, badConfig] = await Promise.all([
      vkr(["keys", "show", "0123456789ab", "--json"]),
      vkrHere(["keys", "revoke", "0123456789ab"]),
      vkrHere(["keys", "create", "--vertical", "no-such-vertical"]),
      vkrHere(["keys", "create"]),
      vkrHere(["status"], { LOG_LEVEL: "loud" }),
    ]);
    expect(missing.code).toBe(3);
    expect(JSON.parse(missing.stdout).error.code).toBe("key_not_found");
    expect(revokeMissing.code).toBe(3);
    expect(badVertical.code).toBe(4);
    expect(badVertical.stderr).toContain("no-such-vertical");
    expect(noVertical.code).toBe(1);
    expect(badConfig.code).toBe(2);
  });
});

// Five TypeScript CLIs one after another: on two busy cores that can take more than a minute.
describe("vkr serve, build, publish", { timeout: 240_000 }, () => {
  it("serves until SIGTERM, then exits 0", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, "serve", "--port", String(port), "--json"], {
      env: { PATH: process.env.PATH ?? "", DATA_DIR: mkdtempSync(join(tmpdir(), "vkr-serve-")), DIST_DIR: dist, LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    try {
      let ready = false;
      for (const deadline = Date.now() + 20_000; !ready && Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
      }
      expect(ready).toBe(true);
      // Log lines (JSON too) share stdout; the announcement is the line without a log level.
      const announced = out
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => !("level" in l));
      expect(announced).toMatchObject({ url: `http://127.0.0.1:${port}`, store: "sqlite" });
    } finally {
      const exit = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
      child.kill("SIGTERM");
      expect(await exit).toBe(0);
    }
  });

  // Two full builds, and only two: `vkr build` of the release, which every publish case reads, and
  // the server's fixture build (built once per run by the build cache with the same build/cli.ts
  // that `vkr build` runs), which stands for a development build. A build that only has to fail
  // fails before it writes anything. The bin runs one build of each exit (the release, 0; the
  // broken link, 1) and the publication; the other refusals run the same command line in this
  // process, which has the build's modules loaded already (a bin build loads them again: about
  // 1.5 s of CPU each).
  it("builds content (exit 1 on a content error) and publishes the build as a release", async () => {
    const content = writeFixtureContent();
    const out = mkdtempSync(join(tmpdir(), "vkr-cli-dist-"));
    const releases = mkdtempSync(join(tmpdir(), "vkr-cli-releases-"));
    // A development build (its sources still cite example.org) is refused, and nothing is uploaded.
    // The refusals and the repeat run in this process; the publication itself through the bin.
    const refused = await vkrHere(["publish", "--dist", dist], { RELEASE_DIR: releases });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not a release build: it was built without --release");
    expect(refused.stderr).toContain("vkr build --release");
    expect(readdirSync(releases)).toEqual([]);
    // A release build needs the signing key, and refuses the placeholder source; with
    // real sources it builds and publishes, signed by the key the deployment publishes.
    const unkeyed = await vkrHere(["build", "--release", "--content", content, "--out", out]);
    expect(unkeyed.code).toBe(1);
    expect(unkeyed.stderr).toContain("a release build needs SIGNING_KEY");
    const placeholder = await vkrHere(["build", "--release", "--content", content, "--out", out], { SIGNING_KEY: RELEASE_KEY });
    expect(placeholder.code).toBe(1);
    expect(placeholder.stdout + placeholder.stderr).toContain("example.org");
    for (const file of readdirSync(content, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"))) {
      const path = join(content, file);
      writeFileSync(
        path,
        readFileSync(path, "utf8").replaceAll("https://example.org/fixture", "https://eur-lex.europa.eu/eli/reg/2004/261/oj"),
      );
    }
    const releaseBuild = await vkr(["build", "--release", "--content", content, "--out", out], { SIGNING_KEY: RELEASE_KEY });
    expect(releaseBuild.code, releaseBuild.stderr + releaseBuild.stdout).toBe(0);
    expect(existsSync(join(out, "browse", "travel", "index.html"))).toBe(true);
    // It says which store it uses: none, only the content and the build folder.
    expect(releaseBuild.stderr).toContain("→ build folder");
    // A deployment that does not publish the release's key refuses it; nothing is uploaded.
    const otherKey = await vkrHere(["publish", "--dist", out], { RELEASE_DIR: releases, SIGNING_KEY: OTHER_KEY });
    expect(otherKey.code).toBe(1);
    expect(otherKey.stderr).toContain("which this deployment does not publish");
    expect(readdirSync(releases)).toEqual([]);
    // After a rotation the old key is still published (SIGNING_PREVIOUS_KEYS), so the release is accepted.
    const published = await vkr(["publish", "--dist", out, "--json"], {
      RELEASE_DIR: releases,
      SIGNING_KEY: OTHER_KEY,
      SIGNING_PREVIOUS_KEYS: RELEASE_PUBLIC_KEY,
    });
    expect(published.code, published.stderr + published.stdout).toBe(0);
    const release = JSON.parse(published.stdout);
    expect(release).toMatchObject({ build_id: expect.stringMatching(/^[0-9a-f]+$/), uploaded: true });
    expect(release.current).toBe(release.build_id);
    expect((await vkrHere(["publish", "--dist", out], { RELEASE_DIR: releases, SIGNING_KEY: RELEASE_KEY })).stdout).toContain(
      "already present",
    );

    writeFileSync(
      join(content, "travel", "trv-m2.md"),
      readFileSync(join(content, "travel", "trv-m2.md"), "utf8").replace("next_nodes: [trv-m3]", "next_nodes: [trv-nowhere]"),
    );
    const broken = await vkr(["build", "--content", content, "--out", out]);
    expect(broken.code).toBe(1);
    expect(broken.stdout + broken.stderr).toContain("trv-nowhere");
    const brokenJson = await vkrHere(["build", "--content", content, "--out", out, "--json"]);
    expect(brokenJson.code).toBe(1);
    const report = JSON.parse(brokenJson.stdout);
    expect(report.ok).toBe(false);
    expect(report.issues.find((i: { message: string }) => i.message.includes("trv-nowhere"))).toMatchObject({
      file: expect.stringContaining("trv-m2.md"),
      line: expect.any(Number),
      fatal: true,
    });
  });
});

describe("vkr status, help", { timeout: 240_000 }, () => {
  it("reports the local build and store, and a running server's readiness", async () => {
    const local = await vkr(["status", "--json"]);
    expect(local.code).toBe(0);
    expect(JSON.parse(local.stdout)).toMatchObject({ ready: true, store: { kind: "sqlite", ok: true }, verticals: { travel: 7 } });
    // Review dates: the fixture's nodes (13, and 6 of its ecommerce vertical) carry none, so none is overdue and all are unscheduled.
    expect(JSON.parse(local.stdout).reviews).toEqual({ overdue: [], unscheduled: 19, next_review_by: null });
    const remote = await vkr(["status", "--url", server.url, "--json"]);
    expect(remote.code).toBe(0);
    expect(JSON.parse(remote.stdout)).toMatchObject({ ready: true, readyz: { status: "ready" } });
    expect((await vkr(["status", "--url", "http://127.0.0.1:9"])).code).toBe(5);
  });

  it("every command has --help, and its usage line says vkr", { timeout: 400_000 }, async () => {
    const commands = [
      [],
      ["serve"],
      ["build"],
      ["publish"],
      ["status"],
      ["keys"],
      ["keys", "create"],
      ["keys", "list"],
      ["keys", "show"],
      ["keys", "revoke"],
    ];
    // The bin for `vkr --help`, every command's in this process (the same usage renderer).
    const helps = await Promise.all(commands.map((command) => (command.length ? vkrHere : vkr)([...command, "--help"])));
    // Usage lines say vkr and the command's own words (`USAGE vkr keys create …`).
    helps.forEach((help, i) => {
      expect(help.code, commands[i]!.join(" ")).toBe(0);
      expect(help.stdout).toContain(["USAGE vkr", ...commands[i]!].join(" "));
    });
  });
});

/** In this process (`vkrHere`), one after another. */
async function vkrInTurn<const R extends ReadonlyArray<readonly [string[], Record<string, string>?]>>(
  ...runs: R
): Promise<{ [K in keyof R]: CliResult }> {
  const results: CliResult[] = [];
  for (const [args, env] of runs) results.push(await vkrHere(args, env));
  return results as { [K in keyof R]: CliResult };
}

describe("strict command lines", { timeout: 300_000 }, () => {
  it("refuses unknown flags and commands with exit 1 and a suggestion, before touching anything", async () => {
    // The bin for the first: a usage error's exit code and stderr, and nothing on stdout.
    const typo = await vkr(["keys", "list", "--lable", "cli-suite"]);
    const [command, top, extra, noValue] = await vkrInTurn(
      [["keys", "lst"]],
      [["stauts"]],
      [["keys", "list", "extra"]],
      [["keys", "list", "--label"]],
    );
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("vkr keys list: unknown option --lable; did you mean --label?");
    expect(typo.stdout).toBe("");
    expect(command.code).toBe(1);
    expect(command.stderr).toContain('did you mean "vkr keys list"?');
    expect(top.code).toBe(1);
    expect(top.stderr).toContain('did you mean "vkr status"?');
    expect(extra.code).toBe(1);
    expect(extra.stderr).toContain('unexpected argument "extra"');
    expect(noValue.code).toBe(1);
    expect(noValue.stderr).toContain("--label needs a value");
  });

  it("suggests the value meant, not only the flag: a vertical, a key id", async () => {
    const created = await vkrHere(["keys", "create", "--vertical", "travel", "--label", "cli-typo", "--json"]);
    const id = (JSON.parse(created.stdout) as { keys: Array<{ id: string }> }).keys[0]!.id;
    // One character wrong (never the same one: a swap of two equal neighbours would be the id itself).
    const mistyped = `${id.slice(0, 5)}${id[5] === "0" ? "1" : "0"}${id.slice(6)}`;
    const [vertical, show, revoke] = await vkrInTurn(
      [["keys", "create", "--vertical", "travle"]],
      [["keys", "show", mistyped]],
      [["keys", "revoke", mistyped]],
    );
    expect(vertical.code).toBe(4);
    expect(vertical.stderr).toContain('"travle" is not a vertical (or all). Did you mean "travel"?');
    for (const res of [show, revoke]) {
      expect(res.code).toBe(3);
      expect(res.stderr).toContain(`No key "${mistyped}". Did you mean "${id}"?`);
    }
  });

  it("says which store each command uses", async () => {
    // `vkr build` says it too ("→ build folder"): checked on the release build above, not built again here.
    const [keys, payments, status, publish] = await vkrInTurn(
      [["keys", "list"]],
      [["payments", "list"]],
      [["status"]],
      [["publish", "--dist", dist], { RELEASE_DIR: mkdtempSync(join(tmpdir(), "vkr-cli-releases-")) }],
    );
    for (const r of [keys, payments]) expect(r.stderr).toContain(`vkr: state store sqlite in ${dataDir}`);
    expect(status.stdout).toContain(`store sqlite in ${dataDir}: ok`);
    expect(publish.stderr).toContain("vkr: release store folder");
  });

  it("explains bad values in words, not JSON pointers; --url notaurl is a usage error", async () => {
    // Usage lines are checked on every command's --help above.
    const [tooMany, fraction, badUrl] = await vkrInTurn(
      [["keys", "create", "--vertical", "travel", "--quantity", "9"]],
      [["keys", "create", "--vertical", "travel", "--quantity", "2.5"]],
      [["status", "--url", "notaurl"]],
    );
    expect(tooMany.code).toBe(4);
    expect(tooMany.stderr).toContain("vkr: --quantity must be at most 5");
    expect(fraction.stderr).toContain("--quantity must be a whole number");
    for (const r of [tooMany, fraction]) expect(r.stderr).not.toMatch(/\/quantity|Expected/);
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('--url "notaurl" is not an http(s) URL');
  });
});
