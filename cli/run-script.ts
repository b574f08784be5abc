/** Runs one of the project's own TypeScript entry points (the build CLI) as a child with inherited stdio; resolves to its exit code. */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../build/package-root.ts";
import { cliIo } from "./io.ts";

export { PACKAGE_ROOT };

export function runScript(rel: string, args: string[]): Promise<number> {
  // An unpacked release (npm run release) has the bundles but neither the sources nor tsx.
  if (!existsSync(join(PACKAGE_ROOT, rel))) {
    cliIo().stderr(
      `vkr: ${rel} is not in ${PACKAGE_ROOT}, an install without the sources (a release); build on a checkout with its dev dependencies and deploy the result\n`,
    );
    return Promise.resolve(1);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(PACKAGE_ROOT, rel), ...args], { stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
