/**
 * Bundles the runtime (runtime/server.ts) with esbuild into dist/server/index.mjs. Native and
 * optional drivers stay external; the metafile is kept so a test can check that no build-time
 * package (unified, remark, gray-matter, ajv) reached the bundle.
 */

import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { PACKAGE_ROOT } from "./package-root.ts";

/** @example await bundleServer("dist/server") // bytes of the bundle and its source map */
export async function bundleServer(outdir = "dist/server"): Promise<number> {
  const dir = resolve(outdir);
  mkdirSync(dir, { recursive: true });
  const result = await build({
    absWorkingDir: PACKAGE_ROOT,
    entryPoints: ["runtime/server.ts"],
    outfile: join(dir, "index.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    minify: false,
    sourcemap: true,
    metafile: true,
    legalComments: "none",
    // OpenTelemetry is imported on demand (runtime/edges/tracing/create-tracing.ts): kept out, it is not
    // even parsed by a server without traces (0.7 MB of bundle, about 7 MB resident).
    external: ["better-sqlite3", "ioredis", "@opentelemetry/*"],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "warning",
  });
  writeFileSync(join(dir, "meta.json"), JSON.stringify(result.metafile));
  return Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
}

// Run as a script (also through a symlinked folder, as a clone's build/ may be).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] ?? "dist/server";
  const bytes = await bundleServer(outdir);
  process.stdout.write(`bundled runtime/server.ts → ${outdir}/index.mjs (${Math.round(bytes / 1024)} KiB incl. source map)\n`);
}
