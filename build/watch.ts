/**
 * Watch mode: rebuilds when anything under the content folder changes, with an in-process cache
 * so only changed files are parsed again. A content error is reported, never fatal to the watcher.
 *
 * The watcher is chokidar, not `fs.watch(recursive)`: editors that save atomically (vim,
 * JetBrains, `sed -i`) write a temp file and rename it over the original, and Node 20's recursive
 * `fs.watch` stops reporting a file after it was replaced once. chokidar re-arms on renames.
 */
import { basename } from "node:path";
import { watch } from "chokidar";
import { type BuildConfig, type BuildResult, buildContent, resolveBuildConfig } from "./index.ts";

/** Quiet time after the last change before rebuilding: editors write several events per save. */
const DEBOUNCE_MS = 150;

/** Editor leftovers that never hold content: swap files, backups (`file~`), dot files. */
const EDITOR_FILE_RE = /^\.|~$|\.sw[a-p]$/;

/**
 * Builds once, then on every change; `onResult` receives each build. Returns a stop function.
 * @example const stop = watchContent({ cache: createBuildCache() }, (r) => console.log(r.ok));
 */
export function watchContent(options: BuildConfig, onResult: (result: BuildResult) => void): () => Promise<void> {
  const { contentDir } = resolveBuildConfig(options);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let pending = false;

  const rebuild = () => {
    // Serialise builds: a change during a build schedules exactly one more.
    if (pending) return;
    pending = true;
    running = running.then(async () => {
      pending = false;
      try {
        onResult(await buildContent(options));
      } catch (error) {
        console.error(`build crashed: ${error instanceof Error ? error.stack : String(error)}`);
      }
    });
  };

  const watcher = watch(contentDir, {
    ignoreInitial: true,
    // Editor leftovers below the content folder (never the folder itself, which may be a temp dir).
    ignored: (path) => path !== contentDir && EDITOR_FILE_RE.test(basename(path)),
  });
  watcher.on("all", () => {
    clearTimeout(timer);
    timer = setTimeout(rebuild, DEBOUNCE_MS);
  });
  watcher.on("error", (error) => console.error(`watcher: ${String(error)}`));
  console.log(`watching ${contentDir} (Ctrl-C to stop)`);
  rebuild();
  return async () => {
    clearTimeout(timer);
    await watcher.close();
    await running;
  };
}
