/**
 * Bundles the runtime (runtime/server.ts) with esbuild into dist/server/index.mjs. Native and
 * optional drivers stay external; the metafile is kept so a test can check that no build-time
 * package (unified, remark, gray-matter, ajv) reached the bundle.
 */
import { build } from "esbuild";
import { mkdirSync, writeFileSync } from "node:fs";

const outdir = process.argv[2] ?? "dist/server";
mkdirSync(outdir, { recursive: true });
const result = await build({
  entryPoints: ["runtime/server.ts"],
  outfile: `${outdir}/index.mjs`,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: false,
  sourcemap: true,
  metafile: true,
  legalComments: "none",
  // OpenTelemetry is imported on demand (runtime/tracing/create-tracing.ts): kept out, it is not
  // even parsed by a server without traces (0.7 MB of bundle, about 7 MB resident).
  external: ["better-sqlite3", "ioredis", "@opentelemetry/*"],
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "warning",
});
writeFileSync(`${outdir}/meta.json`, JSON.stringify(result.metafile));
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
process.stdout.write(`bundled runtime/server.ts → ${outdir}/index.mjs (${Math.round(bytes / 1024)} KiB incl. source map)\n`);
