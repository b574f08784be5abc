/**
 * Builds the real content once for every suite that needs `dist/` (e2e, contract, content tests),
 * so parallel test files never race on building it.
 */
import { execFileSync } from "node:child_process";

export default function setup(): void {
  if (process.env.VKR_SKIP_GLOBAL_BUILD) return;
  execFileSync(process.execPath, ["--import", "tsx", "build/cli.ts"], { stdio: "inherit" });
}
