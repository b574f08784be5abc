/**
 * Runs `npm run publish` (scripts/publish.ts) the way CI does, as a child process. The fixture
 * content cites example.org, which a release build refuses, so these builds are development
 * builds published with `--allow-dev-build` (test/people/cli.e2e.test.ts covers the refusal).
 */
import { execFile } from "node:child_process";

export function runPublish(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  const base = { ...process.env };
  for (const name of ["RELEASE_DIR", "RELEASE_REDIS_URL", "REDIS_URL", "REDIS_PREFIX"]) delete base[name];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/publish.ts", "--allow-dev-build", ...args],
      { env: { ...base, ...env } },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}
