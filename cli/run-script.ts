/** Runs one of the project's own TypeScript entry points (the build CLI) as a child with inherited stdio; resolves to its exit code. */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (where package.json, build/ and scripts/ live), wherever vkr is called from. */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

export function runScript(rel: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(PACKAGE_ROOT, rel), ...args], { stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
