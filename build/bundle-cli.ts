/**
 * Bundles the `vkr` CLI (cli/main.ts) with esbuild into dist/cli/, as build/bundle-server.ts does
 * for the server: one entry plus a chunk per command (loaded only when that command runs), native
 * and optional drivers left external. Beside it, `inputs.json` lists the project files the bundle
 * was made from, so bin/vkr.mjs can tell when it is stale and bundle again.
 *
 * Files are written to a folder of their own and then moved in, the entry last: a `vkr` started
 * meanwhile runs the old entry or the new one, never half of either.
 */

import { mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile, type Plugin } from "esbuild";
import { PACKAGE_ROOT } from "./package-root.ts";

export const CLI_DIR = join(PACKAGE_ROOT, "dist", "cli");
export const CLI_ENTRY = "vkr.mjs";
export const CLI_INPUTS = "inputs.json";

/** @example await bundleCli() // { bytes: 7004512, inputs: 228, metafile } */
export async function bundleCli(outdir = CLI_DIR): Promise<{ bytes: number; inputs: number; metafile: Metafile }> {
  mkdirSync(outdir, { recursive: true });
  const staging = mkdtempSync(join(outdir, ".staging-"));
  try {
    const result = await build({
      absWorkingDir: PACKAGE_ROOT,
      entryPoints: { vkr: "cli/main.ts" },
      outdir: staging,
      outExtension: { ".js": ".mjs" },
      bundle: true,
      splitting: true,
      chunkNames: "chunks/[name]-[hash]",
      platform: "node",
      format: "esm",
      target: "node20",
      metafile: true,
      legalComments: "none",
      external: ["better-sqlite3", "ioredis", "tsx", "esbuild"],
      banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
      logLevel: "warning",
      plugins: [_consolaWithoutSideEffects],
    });
    // The project's own files (not node_modules): what a change to must rebundle. A node_modules
    // reached through a symlink (a worktree sharing another checkout's) shows as
    // `../…/node_modules/…`; listed, bin/vkr.mjs would stat its 2,000 files on every run.
    const inputs = Object.keys(result.metafile.inputs)
      .filter((f) => !f.split("/").includes("node_modules"))
      .sort();
    writeFileSync(join(staging, CLI_INPUTS), `${JSON.stringify({ inputs: [...inputs, "package-lock.json"] })}\n`);
    _moveIn(staging, outdir);
    const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
    return { bytes, inputs: inputs.length, metafile: result.metafile };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

// --- Internal helpers ---

const RESOLVING = Symbol("consola");

/**
 * citty, which `vkr --help` loads to render usage, imports consola for its `runMain` and
 * `showUsage`, which the CLI never calls (command-line.ts parses and renders itself). The import
 * stays because consola's package does not say it is free of side effects, so `--help` evaluated
 * consola and built its default logger, about a quarter of its CPU. Marked side-effect free here,
 * an import of consola nobody uses is dropped; one that is used is bundled as before.
 */
const _consolaWithoutSideEffects: Plugin = {
  name: "consola-without-side-effects",
  setup(build) {
    build.onResolve({ filter: /^consola$/ }, async ({ path, importer, kind, resolveDir, pluginData }) => {
      if (pluginData === RESOLVING) return undefined;
      const resolved = await build.resolve(path, { importer, kind, resolveDir, pluginData: RESOLVING });
      return resolved.errors.length > 0 ? undefined : { ...resolved, sideEffects: false };
    });
  },
};

/** Chunks first (content-hashed names, never overwritten in place), then the inputs list, the entry last. */
function _moveIn(staging: string, outdir: string): void {
  const chunks = join(staging, "chunks");
  mkdirSync(join(outdir, "chunks"), { recursive: true });
  for (const name of readdirSync(chunks)) renameSync(join(chunks, name), join(outdir, "chunks", name));
  renameSync(join(staging, CLI_INPUTS), join(outdir, CLI_INPUTS));
  renameSync(join(staging, CLI_ENTRY), join(outdir, CLI_ENTRY));
}

// Run as a script (also through a symlinked folder, as a clone's build/ may be).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { bytes, inputs } = await bundleCli(process.argv[2] ?? CLI_DIR);
  process.stdout.write(
    `bundled cli/main.ts → ${relative(process.cwd(), join(process.argv[2] ?? CLI_DIR, CLI_ENTRY))} (${Math.round(bytes / 1024)} KiB, ${inputs} project files)\n`,
  );
}
