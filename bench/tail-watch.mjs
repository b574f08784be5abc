// Loaded into a server under `bench/tail.ts` (`node --import bench/tail-watch.mjs …`): records
// every GC pause (by kind) and the event loop's delay, and writes them to TAIL_WATCH_OUT twice a
// second. SIGUSR2 starts a new measurement, so the warm-up is left out. The loop-delay timer
// (1 ms resolution) wakes the loop a thousand times a second, which is why only this diagnosis
// pass loads it, never the judged rows.
import { writeFileSync } from "node:fs";
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from "node:perf_hooks";

const KINDS = new Map([
  [constants.NODE_PERFORMANCE_GC_MINOR, "scavenge"],
  [constants.NODE_PERFORMANCE_GC_MAJOR, "mark-compact"],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental marking"],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, "weak callbacks"],
]);
let pauses = [];
let since = performance.now();
let elu = performance.eventLoopUtilization();
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) pauses.push([KINDS.get(entry.detail?.kind) ?? "other", entry.duration]);
}).observe({ entryTypes: ["gc"] });
process.on("SIGUSR2", () => {
  pauses = [];
  since = performance.now();
  elu = performance.eventLoopUtilization();
  delay.reset();
});
setInterval(() => {
  const gc = {};
  for (const [kind, ms] of pauses) {
    const k = (gc[kind] ??= { count: 0, totalMs: 0, maxMs: 0 });
    k.count++;
    k.totalMs += ms;
    k.maxMs = Math.max(k.maxMs, ms);
  }
  const ms = (n) => n / 1e6;
  writeFileSync(
    process.env.TAIL_WATCH_OUT,
    JSON.stringify({
      wallMs: performance.now() - since,
      utilization: performance.eventLoopUtilization(elu).utilization,
      gc,
      loopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), p999: ms(delay.percentile(99.9)), max: ms(delay.max) },
    }),
  );
}, 500).unref();
