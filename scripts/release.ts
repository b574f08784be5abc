/**
 * `npm run release`: a tarball that runs the service with no build tools on the target machine.
 * It holds the bundled server and CLI, a finished content build, bin/, package.json, the lockfile
 * and the production node_modules, so `node dist/server/index.mjs` needs neither TypeScript, tsx
 * nor esbuild, nor a compiler for better-sqlite3.
 *
 * The production packages are copied from this checkout's node_modules, not installed again:
 * `npm ci --omit=dev` compiles better-sqlite3 from source wherever its prebuilt binary cannot be
 * downloaded, while the copy keeps the addon this machine already built. That addon fits one
 * platform, CPU and Node ABI, so the tarball's name says which. `npm prune --omit=dev
 * --omit=optional --offline` then has npm itself confirm the tree: it removes anything extraneous
 * and fails rather than fetch what is missing.
 *
 * The bundles are made straight into the staging folder, so a `dist/` in service is never
 * touched; the content build is taken from `--dist` (built first unless `--skip-content-build`),
 * without the development signing key kept beside it.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
} from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createGzip } from "node:zlib";
import { bundleCli } from "../build/bundle-cli.ts";
import { bundleServer } from "../build/bundle-server.ts";
import { PACKAGE_ROOT } from "../build/package-root.ts";

export interface ReleaseOptions {
  /** Where the tarball is written (created if missing). */
  outDir: string;
  /** The folder holding the content build to ship (its `data` link, `browse/`, `input-stamp.json`). */
  distDir: string;
  /** Build the content into `distDir` first (`--release` build when `release`). */
  buildContent: boolean;
  release: boolean;
}

export interface ReleaseResult {
  tarball: string;
  buildId: string;
  packages: number;
}

/**
 * Files of the packages that nothing loads at run time: type declarations, TypeScript sources,
 * source maps and docs, two thirds of the files of the production tree. Left out, the tarball is
 * made, unpacked and removed in a third of the time. Licence and notice files stay.
 */
const NOT_RUN = /(\.[cm]?ts|\.map|\.tsbuildinfo|\.md|\.markdown)$/i;
const LEGAL = /\/(licen[cs]e|notice|copying)[^/]*$/i;

/** The files of the project a release needs besides dist/ and node_modules/. */
const PROJECT_FILES = ["bin", "package.json", "package-lock.json", "README.md", "CHANGELOG.md", "LICENSE"];

/** @example await makeRelease({ outDir: "pack", distDir: "dist", buildContent: true, release: false }) */
export async function makeRelease(options: ReleaseOptions): Promise<ReleaseResult> {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as { name: string; version: string };
  const name = `${pkg.name}-${pkg.version}`;
  const tarball = resolve(options.outDir, `${name}-${process.platform}-${process.arch}-abi${process.versions.modules}.tgz`);
  if (options.buildContent) {
    _run(
      process.execPath,
      ["--import", "tsx", "build/cli.ts", "--out", resolve(options.distDir), ...(options.release ? ["--release"] : [])],
      PACKAGE_ROOT,
    );
  }

  mkdirSync(options.outDir, { recursive: true });
  const work = mkdtempSync(join(resolve(options.outDir), ".staging-"));
  try {
    const stage = join(work, name);
    mkdirSync(join(stage, "dist"), { recursive: true });
    const buildId = _copyContentBuild(resolve(options.distDir), join(stage, "dist"));
    await bundleServer(join(stage, "dist", "server"));
    await bundleCli(join(stage, "dist", "cli"));
    for (const file of PROJECT_FILES) {
      if (existsSync(join(PACKAGE_ROOT, file))) cpSync(join(PACKAGE_ROOT, file), join(stage, file), { recursive: true });
    }
    const packages = _copyProductionPackages(PACKAGE_ROOT, stage);
    _run("npm", ["prune", "--omit=dev", "--omit=optional", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], stage);
    await _tarGz(work, name, `${tarball}.part`);
    renameSync(`${tarball}.part`, tarball);
    return { tarball, buildId, packages };
  } finally {
    // rm -rf, not fs.rmSync: on a busy machine Node's removal of 10,000 files takes several times longer.
    spawnSync("rm", ["-rf", work]);
  }
}

// --- Internal helpers ---

/**
 * Copies the build `<distDir>/data` points at into `<to>/.builds/<id>` and links `data` to it as
 * the build does, with the browse site and the build stamp. Returns the build id.
 */
function _copyContentBuild(distDir: string, to: string): string {
  const link = join(distDir, "data");
  if (!existsSync(join(link, "manifest.json"))) {
    throw new Error(`${distDir} holds no content build (no data/manifest.json); run "npm run build" or drop --skip-content-build`);
  }
  const build = realpathSync(link);
  const id = basename(build);
  cpSync(build, join(to, ".builds", id), { recursive: true });
  symlinkSync(join(".builds", id), join(to, "data"));
  if (existsSync(join(distDir, "browse"))) cpSync(join(distDir, "browse"), join(to, "browse"), { recursive: true });
  if (existsSync(join(distDir, "input-stamp.json"))) cpSync(join(distDir, "input-stamp.json"), join(to, "input-stamp.json"));
  return id;
}

/**
 * Copies the packages the lockfile marks neither `dev` nor `devOptional` from `root/node_modules`
 * into `stage/node_modules`. Each goes with its nested node_modules: a nested package of a
 * production one that only a dev package needs is extraneous there, and npm prune removes it.
 * `devOptional` is TypeScript and its types: the dev dependency that viem and abitype also name as
 * an optional peer, which npm would otherwise keep. A package whose installed version is not the
 * lockfile's stops the release: the tarball would not be what the lockfile says.
 */
function _copyProductionPackages(root: string, stage: string): number {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version?: string; dev?: boolean; devOptional?: boolean; optional?: boolean }>;
  };
  let count = 0;
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith("node_modules/") || entry.dev || entry.devOptional) continue;
    const from = join(root, path);
    if (!existsSync(from)) {
      if (entry.optional) continue; // another platform's optional package
      throw new Error(`${path} is in package-lock.json but not installed; run "npm ci" first`);
    }
    const installed = (JSON.parse(readFileSync(join(from, "package.json"), "utf8")) as { version?: string }).version;
    if (entry.version && installed !== entry.version) {
      throw new Error(`${path} is ${installed} but package-lock.json says ${entry.version}; run "npm ci" first`);
    }
    count++;
    if (path.slice("node_modules/".length).includes("/node_modules/")) continue; // copied with its parent
    cpSync(from, join(stage, path), { recursive: true, verbatimSymlinks: true, filter: (src) => !NOT_RUN.test(src) || LEGAL.test(src) });
  }
  return count;
}

/** `tar -cz`, with gzip's fastest level: the tarball is mostly minified JavaScript, and level 6 takes twice as long for a few per cent. */
async function _tarGz(cwd: string, folder: string, file: string): Promise<void> {
  const tar = spawn("tar", ["-cf", "-", folder], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  tar.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done, fail) => {
    tar.once("error", fail);
    tar.once("close", done);
  });
  await pipeline(tar.stdout, createGzip({ level: 1 }), createWriteStream(file));
  const code = await exited;
  if (code !== 0) throw new Error(`release: tar failed (exit ${code})\n${stderr}`);
}

function _run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `release: ${command} ${args.join(" ")} failed${result.error ? ` (${result.error.message})` : ""}\n${result.stdout ?? ""}${result.stderr ?? ""}`,
    );
  }
}

// Run as a script.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      out: { type: "string", default: "pack" },
      dist: { type: "string", default: "dist" },
      "skip-content-build": { type: "boolean", default: false },
      release: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write("usage: npm run release -- [--release] [--skip-content-build] [--dist dist] [--out pack]\n");
    process.exit(0);
  }
  try {
    const result = await makeRelease({
      outDir: values.out,
      distDir: values.dist,
      buildContent: !values["skip-content-build"],
      release: values.release,
    });
    process.stdout.write(
      `release ${relative(process.cwd(), result.tarball)}: build ${result.buildId}, ${result.packages} production packages\n`,
    );
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
