// Loaded into a server under `bench/tail.ts` (`node --import bench/tail-watch.mjs …`): records
// every GC pause (by kind), the event loop's delay and its stalls, and writes them to
// TAIL_WATCH_OUT. SIGUSR2 starts a measurement (so the warm-up is left out) and, sent again, ends
// it. A stall is a turn of the loop that kept a 1 ms timer waiting STALL_MS or more; with
// TAIL_PROFILE=1 a sampling CPU profile runs during the measurement, and the samples taken inside
// stalls are summed by function, which names what the stalls were made of. The timer (and the
// profiler, much more) cost CPU, which is why only this diagnosis pass loads the watcher, never
// the judged rows.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from "node:perf_hooks";

const STALL_MS = 20;
/** The sampling profiler slows a saturated server down (by a quarter at 1 ms), so it runs only when asked. */
const PROFILE = process.env.TAIL_PROFILE === "1";
const KINDS = new Map([
  [constants.NODE_PERFORMANCE_GC_MINOR, "scavenge"],
  [constants.NODE_PERFORMANCE_GC_MAJOR, "mark-compact"],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental marking"],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, "weak callbacks"],
]);
const session = new Session();
session.connect();
const post = (method, params) => new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));

let pauses = [];
let stalls = [];
let since = 0;
let elu;
let measuring = false;
const delay = monitorEventLoopDelay({ resolution: 1 });
new PerformanceObserver((list) => {
  if (measuring) for (const entry of list.getEntries()) pauses.push([KINDS.get(entry.detail?.kind) ?? "other", entry.duration]);
}).observe({ entryTypes: ["gc"] });

// Microseconds on the monotonic clock V8's profiler stamps its samples with.
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
let last = nowUs();
setInterval(() => {
  const now = nowUs();
  if (measuring && now - last >= STALL_MS * 1000) stalls.push([last, now]);
  last = now;
}, 1).unref();

process.on("SIGUSR2", () => void (measuring ? _stop() : _start()));

async function _start() {
  pauses = [];
  stalls = [];
  since = performance.now();
  elu = performance.eventLoopUtilization();
  delay.reset();
  delay.enable();
  if (PROFILE) {
    await post("Profiler.enable");
    await post("Profiler.setSamplingInterval", { interval: 1000 });
    await post("Profiler.start");
  }
  measuring = true;
}

async function _stop() {
  measuring = false;
  const wallMs = performance.now() - since;
  const utilization = performance.eventLoopUtilization(elu).utilization;
  delay.disable();
  const profile = PROFILE ? (await post("Profiler.stop")).profile : null;
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
      wallMs,
      utilization,
      gc,
      loopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), p999: ms(delay.percentile(99.9)), max: ms(delay.max) },
      stalls: {
        count: stalls.length,
        totalMs: stalls.reduce((n, [a, b]) => n + (b - a) / 1000, 0),
        top: profile ? _inStalls(profile) : [],
      },
    }),
  );
}

/** The functions the profiler found running inside the stalls: self time in ms, the ten largest. */
function _inStalls(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let t = profile.startTime;
  let s = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    while (s < stalls.length && stalls[s][1] < t) s++;
    if (s === stalls.length) break;
    if (t < stalls[s][0]) continue;
    const frame = byId.get(profile.samples[i]).callFrame;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([name, msIn]) => [name, Math.round(msIn * 100) / 100]);
}
