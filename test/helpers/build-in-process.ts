/**
 * Builds a content folder's data in the test's own process (build/index.ts), for a test that
 * serves or reads a build but does not test the build CLI. Much cheaper than the CLI in a child
 * (test/helpers/build-fixture.ts), which pays a fresh Node with tsx and writes the browse site
 * too: use that one when the content is the default fixture (built once per run by the global
 * setup) or when what is tested needs the browse site or the CLI itself.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BuildConfig, buildContent } from "../../build/index.ts";

/** With `outDir`, builds over the build already there and publishes by swapping `data`, as the CLI does. */
export async function buildDataInProcess(
  contentDir: string,
  outDir = mkdtempSync(join(tmpdir(), "vkr-dist-")),
  options: Omit<BuildConfig, "contentDir" | "outDir"> = {},
): Promise<string> {
  const result = await buildContent({ ...options, contentDir, outDir });
  if (!result.ok) throw new Error(`content build failed:\n${result.issues.map((i) => JSON.stringify(i)).join("\n")}`);
  return outDir;
}
