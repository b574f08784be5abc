/**
 * Build options: `defineBuildConfig` only types them, `resolveBuildConfig` applies defaults once,
 * and every stage trusts the resolved form (define → resolve → trust).
 */
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { BuildCache } from "./cache.ts";

export interface BuildConfig {
  /** Folder of authored content. Default `content`. */
  contentDir?: string;
  /** Output folder; data lands in `<outDir>/data`. Default `dist`. */
  outDir?: string;
  /** Paths in diagnostics are shown relative to this folder. Default: the working directory. */
  rootDir?: string;
  /**
   * Previous build to lint the delta against: a `data` folder, `false` for none, or `"auto"`
   * (default) for the current `<outDir>/data` if it exists.
   */
  previous?: string | false;
  /** Write the output (default true); `false` only checks and emits in memory. */
  write?: boolean;
  /** In-process cache shared between builds (watch mode, bench): unchanged files are not re-parsed. */
  cache?: BuildCache;
  /**
   * A build to publish (`--release`): authoring placeholders (TODO, example.org sources) are
   * errors instead of warnings. Default false (a dev build).
   */
  release?: boolean;
  /**
   * The private key (JWK or PKCS#8 PEM text) that signs the served files; the CLI passes
   * SIGNING_KEY. Absent: a development key (build/signing-key.ts), which publishing refuses.
   */
  signingKey?: string;
  /** The build's clock, read only by lints (never by output). Default: now. */
  now?: Date;
  /** The date review dates are checked against (`YYYY-MM-DD`). Default: today (UTC) when resolved. */
  today?: string;
}

export interface ResolvedBuildConfig {
  contentDir: string;
  outDir: string;
  dataDir: string;
  rootDir: string;
  previousDataDir: string | false;
  write: boolean;
  cache: BuildCache | undefined;
  release: boolean;
  signingKey: string | undefined;
  now: Date;
  today: string;
}

/**
 * Types a config object; no defaults applied here.
 * @public for a build config file outside this repository; nothing here calls it
 */
export function defineBuildConfig(config: BuildConfig): BuildConfig {
  return config;
}

/** @example resolveBuildConfig({ contentDir: "test/fixtures/content/basic", outDir: tmp }) */
export function resolveBuildConfig(config: BuildConfig = {}): ResolvedBuildConfig {
  const rootDir = resolve(config.rootDir ?? process.cwd());
  const contentDir = resolve(rootDir, config.contentDir ?? "content");
  const outDir = resolve(rootDir, config.outDir ?? "dist");
  const dataDir = join(outDir, "data");
  const previous = config.previous ?? "auto";
  return {
    contentDir,
    outDir,
    dataDir,
    rootDir,
    previousDataDir: previous === "auto" ? dataDir : previous === false ? false : resolve(rootDir, previous),
    write: config.write ?? true,
    cache: config.cache,
    release: config.release ?? false,
    signingKey: config.signingKey,
    now: config.now ?? new Date(),
    today: config.today ?? new Date().toISOString().slice(0, 10),
  };
}

/** Path for messages: relative to the root with `/` separators, absolute when outside it. */
export function toDisplayFile(config: Pick<ResolvedBuildConfig, "rootDir">, absPath: string): string {
  const rel = relative(config.rootDir, absPath);
  const shown = rel.startsWith("..") || isAbsolute(rel) ? absPath : rel;
  return shown.split(sep).join("/");
}
