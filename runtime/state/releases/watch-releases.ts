/**
 * Follows the release store's `current` pointer: every `pollMs` it reads the pointer and, when it
 * names another build, loads and verifies that release and swaps it in with one assignment to
 * `build.current` (a request keeps the build it started with). A release that fails verification
 * is refused and logged; the build in service keeps serving and that publication is not retried
 * until the pointer is written again. An unreachable store is logged and retried on the next tick.
 */
import type { Storage } from "unstorage";
import type { Logger } from "../../shared/logger.ts";
import type { BuildRef } from "./build-ref.ts";
import { loadRelease } from "./load-release.ts";
import { readReleasePointer } from "./release-store.ts";

export interface ReleaseWatcher {
  /** One check now (also what each tick runs); resolves once any swap is done. */
  check(): Promise<void>;
  stop(): void;
}

export function startReleaseWatcher(options: { store: Storage; build: BuildRef; pollMs: number; logger: Logger }): ReleaseWatcher {
  const { store, build, logger } = options;
  let refused: string | null = null;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const checkOnce = async () => {
    let pointer;
    try {
      pointer = await readReleasePointer(store);
    } catch (error) {
      logger.warn("release store unreachable", { error: String(error) });
      return;
    }
    if (!pointer || pointer.build_id === build.current.buildId) return;
    const attempt = `${pointer.build_id}@${pointer.published_at}`;
    if (attempt === refused) return;
    const started = performance.now();
    try {
      const next = await loadRelease(store, pointer.build_id);
      const previous = build.current.buildId;
      build.current = next;
      refused = null;
      logger.info("release swapped", { build_id: next.buildId, previous, ms: Math.round(performance.now() - started) });
    } catch (error) {
      refused = attempt;
      logger.error("release refused", {
        build_id: pointer.build_id,
        serving: build.current.buildId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const check = () => (running ??= checkOnce().finally(() => (running = null)));
  const tick = () => {
    timer = setTimeout(() => {
      void check().finally(() => {
        if (!stopped) tick();
      });
    }, options.pollMs);
    timer.unref();
  };
  tick();
  return {
    check,
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
