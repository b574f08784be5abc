/**
 * A V8 CPU profile of a service bundle under one of `bench/ab.ts`'s rows, reduced to where the
 * time goes per request: the functions with the most self time and the most inclusive time, in µs
 * of the main thread per request, counting only the samples taken while the row was measured
 * (after a warm-up that sent every key once).
 *
 *   npx tsx build/bundle-server.ts .tmp/prof && npx tsx bench/profile.ts .tmp/prof/index.mjs
 *
 * PROFILE_ROW (a pattern of row names, default "one key"), PROFILE_SECONDS (8), PROFILE_KEYS (keys
 * in turn, 10,000), PROFILE_TOP (30), PROFILE_NODE_FLAGS (extra flags for the server's node, e.g.
 * `--no-turbo-inlining`, which keeps an inlined callee's time its own). The profile itself is kept in PROFILE_DIR (a temporary folder).
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadRow, loadRows, selectRows, startService } from "./service-rows.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 8);
const KEYS = Number(process.env.PROFILE_KEYS ?? 10_000);
const TOP = Number(process.env.PROFILE_TOP ?? 30);

async function main(): Promise<void> {
  const bundle = process.argv[2];
  if (!bundle) throw new Error("usage: bench/profile.ts <bundle>");
  const [row] = selectRows(loadRows(KEYS), process.env.PROFILE_ROW ?? "one key");
  if (!row) throw new Error(`no row matches ${process.env.PROFILE_ROW}`);
  const dir = process.env.PROFILE_DIR ?? mkdtempSync(join(tmpdir(), "vkr-profile-"));
  const side = await startService(bundle, row.name === "one key" ? 0 : KEYS, [
    "--cpu-prof",
    `--cpu-prof-dir=${dir}`,
    ...(process.env.PROFILE_NODE_FLAGS ?? "").split(" ").filter(Boolean),
  ]);
  await loadRow(side, row, Math.max(3, Math.ceil(KEYS / 2500)));
  // V8 stamps samples with the monotonic clock process.hrtime reads, in microseconds.
  const from = Number(process.hrtime.bigint() / 1000n);
  const { cpuUs, requests } = await loadRow(side, row, SECONDS);
  const to = Number(process.hrtime.bigint() / 1000n);
  const exited = new Promise((resolve) => side.proc.once("exit", resolve));
  side.proc.kill("SIGINT");
  await exited;
  // The main thread's profile is the first one the process wrote (workers' come after).
  const file = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort()[0]!;
  const profile = JSON.parse(readFileSync(join(dir, file), "utf8")) as CpuProfile;
  const { self, inclusive, busy } = _attribute(profile, from, to);
  const perRequest = (us: number) => (us / requests).toFixed(2).padStart(7);
  process.stdout.write(
    `${row.name}: ${requests} requests, process CPU ${cpuUs.toFixed(1)} µs/req, main thread busy ${perRequest(busy).trim()} µs/req (profile in ${dir})\n`,
  );
  for (const [title, table] of [
    ["self", self],
    ["inclusive", inclusive],
  ] as const) {
    process.stdout.write(`\n${title} µs/req\n`);
    for (const [name, us] of [...table].sort((a, b) => b[1] - a[1]).slice(0, TOP)) process.stdout.write(`${perRequest(us)}  ${name}\n`);
  }
}

/** Self and inclusive time per function (name, file, line) of the samples taken in [from, to]. */
function _attribute(profile: CpuProfile, from: number, to: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const label = (n: ProfileNode) =>
    `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    const delta = profile.timeDeltas[i + 1] ?? 0; // a sample stands for the time until the next one
    if (at < from || at > to) continue;
    const leaf = byId.get(profile.samples[i]!)!;
    if (leaf.callFrame.functionName === "(idle)") continue;
    busy += delta;
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + delta);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parentOf.get(id)) {
      const name = label(byId.get(id)!);
      if (seen.has(name)) continue; // recursion counts once
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
    }
  }
  return { self, inclusive, busy };
}

main().catch((error: unknown) => {
  process.stderr.write(`profile failed: ${String(error)}\n`);
  process.exit(1);
});
