/**
 * Paired A/B runs of two server bundles under the judged rows (metered full node with one key,
 * with many keys in turn, mixed traffic) and the mixed row's evaluations and MCP calls alone, for one change at a time: both bundles run side by side
 * on core 0 with the same state setup, and every pair loads A then B (B then A on odd pairs) for
 * each row, so the machine's drift hits both alike. Prints the server CPU per request of each run
 * and, per row, the median and range of the pair ratios B ÷ A.
 *
 *   npx tsx build/bundle-server.ts .tmp/ab/a   # before the change (e.g. from a checkout of main)
 *   npx tsx build/bundle-server.ts .tmp/ab/b   # after
 *   npx tsx bench/ab.ts .tmp/ab/a/index.mjs .tmp/ab/b/index.mjs
 *
 * AB_PAIRS (default 6), AB_SECONDS (4), AB_KEYS (keys in turn, 10,000), AB_ONLY (a pattern of row
 * names). Both bundles serve the same dist/ (build it first). AB_TRACE=a or b turns traces on for
 * that side (OTEL_EXPORTER_OTLP_ENDPOINT at a local sink, `otlp-sink.ts`): the same bundle twice
 * then measures what traces cost.
 */

import { type OtlpSink, startOtlpSink } from "./otlp-sink.ts";
import { median } from "./process-cpu.ts";
import { type LoadRow, loadRow, loadRows, type ServiceUnderLoad, selectRows, startService } from "./service-rows.ts";

const PAIRS = Number(process.env.AB_PAIRS ?? 6);
const SECONDS = Number(process.env.AB_SECONDS ?? 4);
const KEYS = Number(process.env.AB_KEYS ?? 10_000);
const TRACE = process.env.AB_TRACE === "a" ? 0 : process.env.AB_TRACE === "b" ? 1 : -1;
/** Requests sent to each side, to set against the spans the sink received. */
const sent = [0, 0];

async function main(): Promise<void> {
  const [a, b] = process.argv.slice(2);
  if (!a || !b) throw new Error("usage: bench/ab.ts <bundle A> <bundle B>");
  const sink: OtlpSink | null = TRACE >= 0 ? await startOtlpSink() : null;
  const traced = (i: number): Record<string, string> => (sink && i === TRACE ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {});
  const sides = [await startService(a, KEYS, [], traced(0)), await startService(b, KEYS, [], traced(1))];
  const rows = selectRows(loadRows(KEYS), process.env.AB_ONLY);
  try {
    // Warm-up: JIT, caches, and every key of the rotation sent once.
    for (const row of rows) for (const side of sides) await _run(side, row, Math.max(2, Math.ceil(KEYS / 2500)));
    const cpu = new Map<string, Array<[number, number]>>(rows.map((r) => [r.name, []]));
    for (let pair = 0; pair < PAIRS; pair++) {
      for (const row of rows) {
        const order = pair % 2 === 0 ? [0, 1] : [1, 0];
        const got: number[] = [];
        for (const i of order) got[i] = await _run(sides[i]!, row, SECONDS);
        cpu.get(row.name)!.push([got[0]!, got[1]!]);
        process.stdout.write(
          `pair ${pair + 1} ${row.name}: A ${got[0]!.toFixed(1)} µs, B ${got[1]!.toFixed(1)} µs, B÷A ${(got[1]! / got[0]!).toFixed(3)}\n`,
        );
      }
    }
    process.stdout.write("\nrow: median CPU µs/req A, B; pair ratio B÷A median (min–max)\n");
    for (const row of rows) {
      const runs = cpu.get(row.name)!;
      const ratios = runs.map(([x, y]) => y / x).sort((p, q) => p - q);
      process.stdout.write(
        `${row.name}: ${median(runs.map((r) => r[0])).toFixed(1)}, ${median(runs.map((r) => r[1])).toFixed(1)}; ${median(ratios).toFixed(3)} (${ratios[0]!.toFixed(3)}–${ratios.at(-1)!.toFixed(3)}), B lower in ${ratios.filter((r) => r < 1).length} of ${ratios.length}\n`,
      );
    }
  } finally {
    for (const s of sides) s.proc.kill("SIGTERM");
    if (sink) {
      // The traced side flushes on SIGTERM; its last batch is counted too.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      process.stdout.write(
        `traces (side ${"ab"[TRACE]}): ${sink.spans} spans in ${sink.exports} exports for ${sent[TRACE]} requests (warm-up and setup included): ${(sink.spans / sent[TRACE]!).toFixed(2)} a request\n`,
      );
      await sink.close();
    }
  }
}

async function _run(side: ServiceUnderLoad, row: LoadRow, seconds: number): Promise<number> {
  const { cpuUs, requests } = await loadRow(side, row, seconds);
  sent[side.index]! += requests;
  return cpuUs;
}

main().catch((error: unknown) => {
  process.stderr.write(`ab failed: ${String(error)}\n`);
  process.exit(1);
});
