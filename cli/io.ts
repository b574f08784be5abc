/**
 * Where a `vkr` run writes and what it reads its environment from. The binary (main.ts) runs with
 * the process's own streams and environment; `runCli` (cli/run.ts) can run a command line inside a
 * caller's process with other ones, and hands back the exit code instead of setting the process's.
 * The suites run most usage and error cases that way: a child per case cost about half a second
 * of CPU each (a Node start and the command's modules), for output that is the same.
 *
 * Carried in an AsyncLocalStorage rather than passed to every command: a command's `run` has
 * citty's signature, and the print and exit-code helpers (output.ts, operator-context.ts) are
 * called from deep inside each one. Two runs side by side each see their own, the text report of
 * `vkr build` included (build/build-report.ts prints to the streams it is given). Not carried: a
 * `--watch` child's output, so the suites run that through the bin.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The environment the run's configuration is read from (process.env for the binary). */
  env: NodeJS.ProcessEnv;
  /** The run's exit code so far: a command sets it, runCli returns it. */
  exitCode: number;
}

const current = new AsyncLocalStorage<CliIo>();

/** The process's own streams and environment, as the binary runs with. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    exitCode: 0,
  };
}

const fallback = processIo();

/** The io of the run in progress (the process's own outside one). */
export function cliIo(): CliIo {
  return current.getStore() ?? fallback;
}

/** Runs `body` with `io` as the run's io. */
export function withCliIo<T>(io: CliIo, body: () => Promise<T>): Promise<T> {
  return current.run(io, body);
}
