/**
 * The test runs' content builds, one per distinct input, in a folder kept between runs
 * (`.tmp/test-build-cache/`, named to the workers by test/global-setup.ts). The key is the build's
 * own input digest (content, build code, docs: build/input-stamp.ts) with the toolchain that ran
 * it (the lockfile's bytes and Node's version), so two files that build the same content share one
 * build, and a run after an unchanged one builds nothing again; any change of an input is a new
 * key. Each build is made beside its slot and renamed into it, so a reader never sees half a
 * build; a lock folder makes a second file (or worker, or run) that wants the same input wait for
 * the first build instead of repeating it (`cachedSlot`, and `_cachedSync` for the synchronous
 * callers). Callers never read a slot directly: they get a private copy
 * (`copyBuild`), which they may change. Slots unused for a few days are pruned at the end of a run.
 */
import { execFile, execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { digestBuildInputs } from "../../build/input-stamp.ts";

/** Names the cache folder for the test workers (set by test/global-setup.ts; unset outside a vitest run). */
export const BUILD_CACHE_ENV = "VKR_TEST_BUILD_CACHE";
/** Inside the repository, so a cached server bundle's external native packages resolve from node_modules. */
export const BUILD_CACHE_DIR = join(".tmp", "test-build-cache");
/** A slot no run used for this long is removed by the next run's teardown. */
const UNUSED_FOR_MS = 3 * 24 * 3600 * 1000;
/**
 * The bundled `vkr build` (the same build code and report as `tsx build/cli.ts`): no TypeScript to
 * transpile per build, about 2 s less CPU for the fixture content. The global setup makes sure the
 * bundle is current before any build starts.
 */
export const BUILD_ARGS = ["bin/vkr.mjs", "build"];
/** The server bundler (build/bundle-server.ts), given the folder to bundle into. */
const SERVER_BUNDLE_ARGS = ["--import", "tsx", "build/bundle-server.ts"];
/**
 * A build child that hangs (one sat in a futex wait for half an hour on a loaded machine) would
 * block its test file's worker for good, since a synchronous call outlives every vitest timeout.
 */
export const BUILD_TIMEOUT_MS = 300_000;
/** A lock older than any build can take was left by a worker that died while building. */
const STALE_LOCK_MS = BUILD_TIMEOUT_MS + 60_000;

/** The cached build of `contentDir` (built now if it is not there yet); callers copy it, never change it. */
export function cachedBuildSync(contentDir: string, cache: string): string {
  return _cachedSync(contentSlot(contentDir, cache), (temp) =>
    execFileSync(process.execPath, [...BUILD_ARGS, "--content", contentDir, "--out", temp], {
      stdio: "pipe",
      timeout: BUILD_TIMEOUT_MS,
      env: _buildEnv(),
    }),
  );
}

/**
 * The server bundle (build/bundle-server.ts), made by the first file that starts a child server
 * and kept while its inputs (runtime/, the bundler script, the toolchain) are unchanged. It lives
 * inside the repository (`.tmp/`), so its external native packages resolve from node_modules.
 */
export function cachedServerBundleSync(cache: string): string {
  return _cachedSync(serverBundleSlot(cache), (temp) =>
    execFileSync(process.execPath, [...SERVER_BUNDLE_ARGS, temp], { stdio: "pipe", timeout: BUILD_TIMEOUT_MS }),
  );
}

/** The same, without blocking: the global setup bundles the server beside the content builds, on a core they leave idle. */
export function cachedServerBundle(cache: string): Promise<string> {
  return cachedSlot(serverBundleSlot(cache), async (temp) => {
    mkdirSync(temp);
    await promisify(execFile)(process.execPath, [...SERVER_BUNDLE_ARGS, temp], { timeout: BUILD_TIMEOUT_MS });
  });
}

export function serverBundleSlot(cache: string): string {
  serverSlot ??= join(cache, `server-${_digest(_toolchain(), ...["runtime", "build/bundle-server.ts"].flatMap(_files))}`);
  return serverSlot;
}

/** Where the build of `contentDir` is (or will be) kept. */
export function contentSlot(contentDir: string, cache: string): string {
  return join(cache, `build-${_digest(_toolchain(), digestBuildInputs(contentDir))}`);
}

/** The slot of an in-process data build of `contentDir` (test/helpers/build-in-process.ts), keyed as a CLI build's. */
export function dataSlot(contentDir: string, cache: string): string {
  return join(cache, `data-${_digest(_toolchain(), digestBuildInputs(contentDir))}`);
}

/**
 * The slot (a file) of a checking build's answer about `contentDir`: its key is the build's inputs
 * and the toolchain, as a build's, plus `question`, everything else the answer depends on (the
 * build's options and the day review dates are judged by). `test/helpers/content-check.ts` fills it.
 */
export function checkSlot(contentDir: string, cache: string, question: string): string {
  return join(cache, `check-${_digest(_toolchain(), digestBuildInputs(contentDir), question)}.json`);
}

/** Marks a slot used now, so the pruning keeps it. */
export function markUsed(slot: string): string {
  const now = new Date();
  utimesSync(slot, now, now);
  return slot;
}

/** Removes slots (and leftovers of builders that died) no run has used for a few days. */
export function pruneCache(cache: string, now = Date.now()): void {
  for (const name of readdirSync(cache)) {
    const path = join(cache, name);
    try {
      if (now - statSync(path).mtimeMs > UNUSED_FOR_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another run's teardown.
    }
  }
}

/** The same, without blocking: the global setup builds the default fixture beside the real content, before any file runs. */
export function cachedBuild(contentDir: string, cache: string): Promise<string> {
  return cachedSlot(contentSlot(contentDir, cache), async (temp) => {
    mkdirSync(temp);
    await promisify(execFile)(process.execPath, [...BUILD_ARGS, "--content", contentDir, "--out", temp], {
      timeout: BUILD_TIMEOUT_MS,
      env: _buildEnv(),
    });
  });
}

/**
 * `slot` (a folder or a file), made now by `make` when it is not there yet. `make` writes to
 * `temp`, a path beside the slot that does not exist yet, renamed into place when it is done, so
 * a reader never sees half a slot. The slot's lock makes a second maker (another worker, another
 * run) wait for the first one's slot instead of making the same one again; a maker that fails
 * leaves no slot and no lock, and the next caller tries again.
 */
export async function cachedSlot(slot: string, make: (temp: string) => Promise<void>): Promise<string> {
  mkdirSync(dirname(slot), { recursive: true });
  while (!existsSync(slot)) {
    if (!_lock(slot)) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    const temp = `${slot}.building-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      if (existsSync(slot)) break;
      await make(temp);
      renameSync(temp, slot);
    } finally {
      rmSync(temp, { recursive: true, force: true });
      rmSync(`${slot}.lock`, { recursive: true, force: true });
    }
  }
  return markUsed(slot);
}

/**
 * A private copy of a cached build in a fresh folder. A build's `data` is a relative symlink into
 * its own `.builds/`; copied without `verbatimSymlinks`, Node rewrites it to an absolute link back
 * into the cache, so a test that changed its copy's `data/status.json` changed every later copy
 * (the failure that once had this cache taken back).
 */
export function copyBuild(slot: string): string {
  const out = mkdtempSync(join(tmpdir(), "vkr-dist-"));
  cpSync(slot, out, { recursive: true, verbatimSymlinks: true });
  return out;
}

// --- Internal helpers ---

let serverSlot: string | undefined;
let toolchain: string | undefined;

/** `make` fills a temp folder beside `slot`, renamed into place; a lock folder keeps a second maker waiting instead of repeating the work. */
function _cachedSync(slot: string, make: (temp: string) => void): string {
  while (!existsSync(slot)) {
    if (!_lock(slot)) {
      _sleep(100);
      continue;
    }
    try {
      if (existsSync(slot)) break;
      const temp = mkdtempSync(`${slot}.building-`);
      make(temp);
      renameSync(temp, slot);
    } finally {
      rmSync(`${slot}.lock`, { recursive: true, force: true });
    }
  }
  return markUsed(slot);
}

/**
 * The environment of a cached build: a development build, never signed with a SIGNING_KEY the
 * developer's shell happens to hold, which the key (inputs, not environment) could not tell apart.
 */
function _buildEnv(): NodeJS.ProcessEnv {
  const { SIGNING_KEY: _signingKey, ...env } = process.env;
  return env;
}

/** What else a build's bytes depend on: the installed packages (the lockfile) and Node. */
function _toolchain(): string {
  toolchain ??= _digest(process.version, readFileSync("package-lock.json", "utf8"));
  return toolchain;
}

/** Every file under `root` (or `root` itself), sorted, as `path\0bytes` entries. */
function _files(root: string): string[] {
  if (!statSync(root).isDirectory()) return [`${root}\0${readFileSync(root, "utf8")}`];
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .map((f) => join(root, f))
    .filter((f) => statSync(f).isFile())
    .sort()
    .map((f) => `${relative(".", f)}\0${readFileSync(f, "utf8")}`);
}

function _digest(...parts: string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\0");
  return hash.digest("hex").slice(0, 32);
}

/** Takes the slot's build lock (mkdir is atomic), breaking one left by a dead builder. */
function _lock(slot: string): boolean {
  const lock = `${slot}.lock`;
  try {
    mkdirSync(lock);
    return true;
  } catch {
    try {
      if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
    } catch {
      // Released meanwhile: the next round takes it or finds the build.
    }
    return false;
  }
}

function _sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
