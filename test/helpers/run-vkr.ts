/** Runs the real `vkr` bin (bin/vkr.mjs) as a child process with only PATH and `env` in its environment. */
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
