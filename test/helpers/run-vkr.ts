/**
 * Runs `vkr`: the real bin (bin/vkr.mjs) as a child process, or the same command line in this
 * process (cli/run.ts's `runCli`, what the bin's main.ts calls), each with only PATH and `env` in
 * its environment. A child costs about half a second of CPU (a Node start and the command's
 * modules); in this process the modules load once per worker. Suites run a few cases through the
 * bin, which proves its wiring (bundle, exit code, streams), and the rest in process.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";

export interface VkrResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runVkr(args: string[], env: Record<string, string> = {}): Promise<VkrResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(process.cwd(), "bin", "vkr.mjs"), ...args],
      { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The same command line as `runVkr`, run in this process; its output is captured, not printed. */
export async function runVkrInProcess(args: string[], env: Record<string, string> = {}): Promise<VkrResult> {
  const { runCli } = await import("../../cli/run.ts");
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { PATH: process.env.PATH ?? "", ...env },
    exitCode: 0,
  });
  return { code, stdout, stderr };
}
