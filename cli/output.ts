/** Printing results: `--json` gives one JSON document on stdout; otherwise a short human text. */
import { ConfigError } from "../runtime/config.ts";
import { isApiError } from "../runtime/errors.ts";
import { EXIT, OperatorError } from "./exit-codes.ts";

export function printResult(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

/**
 * Runs a command body and turns its failure into an exit code: operator errors and catalogue
 * errors (the same `apiError`s the HTTP routes throw) map to their codes, anything else is 1.
 */
export async function runOperation(json: boolean, body: () => Promise<number | void>): Promise<void> {
  let code: number;
  try {
    code = (await body()) ?? EXIT.ok;
  } catch (error) {
    const failure = _toOperatorError(error);
    if (json) process.stdout.write(`${JSON.stringify({ error: { code: failure.code, message: failure.message } })}\n`);
    process.stderr.write(`vkr: ${failure.message}\n`);
    code = failure.exitCode;
  }
  process.exitCode = code;
}

// --- Internal helpers ---

function _toOperatorError(error: unknown): OperatorError {
  if (error instanceof OperatorError) return error;
  if (error instanceof ConfigError) return new OperatorError("config_error", `config error: ${error.message}`, EXIT.config);
  if (isApiError(error)) {
    const exit = error.status === 404 ? EXIT.notFound : error.status >= 500 ? EXIT.failure : EXIT.refused;
    return new OperatorError(error.code, error.message, exit);
  }
  return new OperatorError("internal_error", error instanceof Error ? (error.stack ?? error.message) : String(error), EXIT.failure);
}
