/** Builds a content folder into a fresh dist folder with the real build CLI (a child process). */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function buildContentTo(contentDir: string, outDir = mkdtempSync(join(tmpdir(), "vkr-dist-"))): string {
  execFileSync(process.execPath, ["--import", "tsx", "build/cli.ts", "--content", contentDir, "--out", outDir], { stdio: "pipe" });
  return outDir;
}
