/**
 * The content build as `npm start` and `npm run dev` run it: `vkr build` (bin/vkr.mjs, the bundled
 * CLI), whose text mode runs build/cli.ts's own code (`buildAndReport`: the same report and exit
 * code). Bundled, a build of the fixture content costs about half the CPU of `tsx build/cli.ts`
 * (2.5 s against 5 s), which loads the build's hundreds of modules through tsx; the bin bundles
 * the CLI first when its sources changed.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** This checkout's bin, found from this file (a project may link scripts/ from elsewhere). */
const VKR_BIN = fileURLToPath(new URL("../bin/vkr.mjs", import.meta.url));

/** Runs `vkr build <args>` with its output on this terminal; resolves to its exit code. */
export function runBundledBuild(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VKR_BIN, "build", ...args], { stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
