/**
 * A test run's content builds, one per distinct input, in a folder the global setup makes
 * (test/global-setup.ts). The key is the build's own input digest (content, build code, docs:
 * build/input-stamp.ts), so two files that build the same content share one build. Each build is
 * made beside its slot and renamed into it, so a reader never sees half a build; a lock folder
 * makes a second file that wants the same input wait for the first build instead of repeating it.
 * Callers never read a slot directly: they get a private copy (`copyBuild`), which they may change.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { digestBuildInputs } from "../../build/input-stamp.ts";

/** Names the run's cache folder for the test workers (set by test/global-setup.ts; unset outside a vitest run). */
export const BUILD_CACHE_ENV = "VKR_TEST_BUILD_CACHE";
/**
 * The bundled `vkr build` (the same build code and report as `tsx build/cli.ts`): no TypeScript to
 * transpile per build, about 2 s less CPU for the fixture content. The global setup makes sure the
 * bundle is current before any build starts.
 */
export const BUILD_ARGS = ["bin/vkr.mjs", "build"];
/**
 * A build child that hangs (one sat in a futex wait for half an hour on a loaded machine) would
 * block its test file's worker for good, since a synchronous call outlives every vitest timeout.
 */
export const BUILD_TIMEOUT_MS = 300_000;
/** A lock older than any build can take was left by a worker that died while building. */
const STALE_LOCK_MS = BUILD_TIMEOUT_MS + 60_000;

/** The cached build of `contentDir` (built now if it is not there yet); callers copy it, never change it. */
export function cachedBuildSync(contentDir: string, cache: string): string {
  return _cachedSync(join(cache, digestBuildInputs(contentDir)), (temp) =>
    execFileSync(process.execPath, [...BUILD_ARGS, "--content", contentDir, "--out", temp], { stdio: "pipe", timeout: BUILD_TIMEOUT_MS }),
  );
}

/**
 * The run's server bundle (build/bundle-server.ts), made by the first file that starts a child
 * server. It lives inside the repository (`.tmp/`), so its external native packages resolve from
 * node_modules; the global setup's teardown removes it with the cache.
 */
export function cachedServerBundleSync(cache: string): string {
  mkdirSync(".tmp", { recursive: true });
  return _cachedSync(serverBundleSlot(cache), (temp) =>
    execFileSync(process.execPath, ["--import", "tsx", "build/bundle-server.ts", temp], { stdio: "pipe", timeout: BUILD_TIMEOUT_MS }),
  );
}

export function serverBundleSlot(cache: string): string {
  return join(process.cwd(), ".tmp", `server-${basename(cache)}`);
}

/** The same, without blocking: the global setup builds the default fixture beside the real content, before any file runs. */
export async function cachedBuild(contentDir: string, cache: string): Promise<string> {
  const slot = join(cache, digestBuildInputs(contentDir));
  const temp = mkdtempSync(`${slot}.building-`);
  await promisify(execFile)(process.execPath, [...BUILD_ARGS, "--content", contentDir, "--out", temp], { timeout: BUILD_TIMEOUT_MS });
  renameSync(temp, slot);
  return slot;
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
  return slot;
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
