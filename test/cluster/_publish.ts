/**
 * Runs `npm run publish` (scripts/publish.ts) the way CI does, as a child process, or its command
 * line in this process (`publishCommand`, the function the script calls) with the same
 * environment. The fixture content cites example.org, which a release build refuses, so these
 * builds are development builds published with `--allow-dev-build` (test/people/cli.e2e.test.ts
 * covers the refusal).
 */
import { execFile } from "node:child_process";
import { publishCommand } from "../../scripts/publish-command.ts";

export function runPublish(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/publish.ts", "--allow-dev-build", ...args],
      { env: _env(env) },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}

/** The same command line without a child: what a case asserts of the publication, not of the script's wiring. */
export async function runPublishInProcess(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  let output = "";
  const code = await publishCommand(["--allow-dev-build", ...args], _env(env), {
    log: (line) => void (output += `${line}\n`),
    error: (line) => void (output += `${line}\n`),
  });
  return { code, output };
}

// --- Internal helpers ---

/** This process's environment without a release store of its own, then `env`. */
function _env(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ["RELEASE_DIR", "RELEASE_REDIS_URL", "REDIS_URL", "REDIS_PREFIX"]) delete base[name];
  return { ...base, ...env };
}
