/**
 * Exit codes of `vkr`, stable for scripts: 0 success, 1 unexpected failure or a usage error (an
 * unknown command or flag, a missing argument: command-line.ts), 2 configuration error (bad
 * environment), 3 the named key (or other thing) does not exist, 4 the request was refused
 * (invalid input, account cap), 5 the service is not ready (status).
 */
export const EXIT = { ok: 0, failure: 1, config: 2, notFound: 3, refused: 4, notReady: 5 } as const;

/** An expected failure with its exit code; `main.ts` prints it (as JSON with `--json`) and exits. */
export class OperatorError extends Error {
  readonly exitCode: number;
  readonly code: string;
  constructor(code: string, message: string, exitCode: number) {
    super(message);
    this.code = code;
    this.exitCode = exitCode;
  }
}
