/**
 * The Dockerfile cannot be built on the machines the tests run on (no access to Docker Hub), so
 * it is read instead: every script it runs, file it copies, route it checks and setting it gives
 * must exist in the project, so a rename elsewhere fails here rather than in someone's image build.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../runtime/edges/routes/index.ts";

interface Stage {
  from: string;
  name: string | undefined;
  lines: string[];
}

const dockerfile = readFileSync("Dockerfile", "utf8");
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string>; engines: { node: string } };
// Instructions, with continuation lines joined and comments dropped.
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));
const stages: Stage[] = [];
for (const line of instructions) {
  const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
  if (from) stages.push({ from: from[1]!, name: from[2], lines: [] });
  else stages.at(-1)?.lines.push(line);
}
const [builder, runtime] = stages;
const env = new Map<string, string>(
  runtime!.lines
    .filter((l) => l.startsWith("ENV "))
    .flatMap((l) => [...l.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!] as [string, string])),
);

describe("the Dockerfile", () => {
  it("builds on the full Node image with compilers and runs on the slim one, both of the Node major in engines", () => {
    expect(stages).toHaveLength(2);
    const major = /(\d+)/.exec(pkg.engines.node)![1];
    expect(builder!.from).toBe(`node:${major}-bookworm`);
    expect(runtime!.from).toBe(`node:${major}-bookworm-slim`);
    expect(builder!.lines.join("\n")).toMatch(/apt-get install[^\n]*python3[^\n]*make[^\n]*g\+\+/);
  });

  it("runs only npm scripts that package.json has, and prunes the dev packages as the release does", () => {
    const run = builder!.lines.filter((l) => l.startsWith("RUN")).join("\n");
    const scripts = [...run.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(scripts).toEqual(expect.arrayContaining(["build", "build:release"]));
    for (const script of scripts) expect(pkg.scripts, script).toHaveProperty([script]);
    expect(run).toContain("npm ci");
    expect(run).toContain("npm prune --omit=dev --omit=optional");
    expect(readFileSync("scripts/release.ts", "utf8")).toContain('"--omit=dev", "--omit=optional"');
    // The development signing key is a private key: it never reaches the runtime stage.
    expect(run).toContain("rm -f dist/.dev-signing-key.json");
  });

  it("copies into the runtime stage only what runs, each made by the builder or in the repository", () => {
    const copies = runtime!.lines.filter((l) => l.startsWith("COPY"));
    const sources = copies.flatMap((l) => {
      expect(l).toContain("--from=build");
      const parts = l.split(/\s+/).filter((p) => !p.startsWith("--"));
      return parts.slice(1, -1).map((p) => p.replace(/^\/app\//, ""));
    });
    expect(sources.sort()).toEqual(["bin", "dist", "node_modules", "package-lock.json", "package.json"]);
    for (const source of sources.filter((s) => s !== "dist" && s !== "node_modules")) expect(existsSync(source), source).toBe(true);
    // No sources: bin/vkr.mjs then runs the CLI bundle as it is (see the release test).
    for (const folder of ["runtime", "build", "cli", "content"]) expect(sources).not.toContain(folder);
  });

  it("starts the bundle the server build writes, as a non-root user, with settings the runtime reads", () => {
    const cmd = runtime!.lines.find((l) => l.startsWith("CMD"))!;
    expect(JSON.parse(cmd.slice(3).trim())).toEqual(["node", "dist/server/index.mjs"]);
    expect(pkg.scripts["build:server"]).toBe("tsx build/bundle-server.ts");
    expect(readFileSync("build/bundle-server.ts", "utf8")).toMatch(/outdir = "dist\/server"[\s\S]*"index\.mjs"/);

    const user = runtime!.lines.find((l) => l.startsWith("USER"))!;
    expect(user.split(/\s+/)[1]).not.toMatch(/^(root|0)$/);

    const config = readFileSync("runtime/config.ts", "utf8");
    const docs = readFileSync("docs/configuration.md", "utf8");
    for (const name of env.keys()) {
      if (name === "NODE_ENV") continue;
      expect(config, name).toMatch(new RegExp(`\\b${name}\\b`));
      expect(docs, name).toContain(`\`${name}\``);
    }
    expect(env.get("HOST")).toBe("0.0.0.0");
    expect(runtime!.lines).toContain(`EXPOSE ${env.get("PORT")}`);
    expect(runtime!.lines).toContain(`VOLUME ["${env.get("DATA_DIR")}"]`);
  });

  it("checks health on a route the service has", () => {
    const health = runtime!.lines.find((l) => l.startsWith("HEALTHCHECK"))!;
    const route = /\/(healthz|readyz)/.exec(health)?.[0];
    expect(route).toBe("/healthz");
    expect(ROUTES.some((r) => r.method === "get" && r.path === route)).toBe(true);
  });

  it("keeps host builds out of the context but not what the build reads", () => {
    const ignored = readFileSync(".dockerignore", "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"));
    for (const path of ["node_modules", "dist", "data", ".git"]) expect(ignored, path).toContain(path);
    for (const needed of ["package.json", "package-lock.json", "content", "build", "runtime", "cli", "client", "bin", "scripts"])
      expect(ignored, needed).not.toContain(needed);
  });

  it("is documented with the commands to build and run it", () => {
    const ops = readFileSync("docs/operations.md", "utf8");
    expect(ops).toContain("docker build -t vkr .");
    expect(ops).toContain(`docker run -p ${env.get("PORT")}:${env.get("PORT")} -v vkr-data:${env.get("DATA_DIR")}`);
  });
});
