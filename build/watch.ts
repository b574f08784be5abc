/**
 * Watch mode: rebuilds when anything under the content folder changes, with an in-process cache
 * so only changed files are parsed again. A content error is reported, never fatal to the watcher.
 */
import { watch } from "node:fs";
import { buildContent, resolveBuildConfig, type BuildConfig, type BuildResult } from "./index.ts";

/** Quiet time after the last change before rebuilding: editors write several events per save. */
const DEBOUNCE_MS = 150;

/**
 * Builds once, then on every change; `onResult` receives each build. Returns a stop function.
 * @example const stop = watchContent({ cache: createBuildCache() }, (r) => console.log(r.ok));
 */
export function watchContent(options: BuildConfig, onResult: (result: BuildResult) => void): () => void {
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

  const watcher = watch(contentDir, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(rebuild, DEBOUNCE_MS);
  });
  console.log(`watching ${contentDir} (Ctrl-C to stop)`);
  rebuild();
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
