/** Printing results: `--json` gives one JSON document on stdout; otherwise a short human text. */
import { isApiError } from "../runtime/shared/errors.ts";
import { EXIT, OperatorError } from "./exit-codes.ts";
import { cliIo } from "./io.ts";

export function printResult(json: boolean, value: unknown, text: () => string): void {
  cliIo().stdout(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
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
    const failure = await _toOperatorError(error);
    if (json) cliIo().stdout(`${JSON.stringify({ error: { code: failure.code, message: failure.message } })}\n`);
    cliIo().stderr(`vkr: ${failure.message}\n`);
    code = failure.exitCode;
  }
  cliIo().exitCode = code;
}

// --- Internal helpers ---

async function _toOperatorError(error: unknown): Promise<OperatorError> {
  if (error instanceof OperatorError) return error;
  // Loaded on failure only: the runtime config module brings in half the runtime, which a command
  // that never reads the config (`status --url`, `verify-answer`) should not pay for on success.
  const { ConfigError } = await import("../runtime/config.ts");
  if (error instanceof ConfigError) return new OperatorError("config_error", `config error: ${error.message}`, EXIT.config);
  if (isApiError(error)) {
    const exit = error.status === 404 ? EXIT.notFound : error.status >= 500 ? EXIT.failure : EXIT.refused;
    const fields = error.options.errors;
    const message = fields?.length ? fields.map((f) => `${_toFlag(f.pointer)} ${_toHumanMessage(f.message)}`).join("; ") : error.message;
    return new OperatorError(error.code, message, exit);
  }
  // Unexpected: one line an operator can act on or quote in a bug report, not a stack trace.
  return new OperatorError("internal_error", `unexpected error: ${error instanceof Error ? error.message : String(error)}`, EXIT.failure);
}

/** `/agent_id` (a body pointer) → `--agent-id` (the flag that filled it). */
function _toFlag(pointer: string): string {
  const field = pointer.split("/").filter(Boolean)[0];
  return field ? `--${field.replace(/_/g, "-")}` : "the input";
}

/** Validator phrases ("Expected integer to be less or equal to 5") as an operator would say them. */
const HUMAN_MESSAGES: ReadonlyArray<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^Expected (?:integer|number) to be less or equal to (\S+)$/, (m) => `must be at most ${m[1]}`],
  [/^Expected (?:integer|number) to be greater or equal to (\S+)$/, (m) => `must be at least ${m[1]}`],
  [/^Expected integer$/, () => "must be a whole number"],
  [/^Expected number$/, () => "must be a number"],
  [/^Expected string length less or equal to (\d+)$/, (m) => `must be at most ${m[1]} characters`],
  [/^Expected string length greater or equal to (\d+)$/, (m) => `must be at least ${m[1]} character${m[1] === "1" ? "" : "s"}`],
  [/^Expected string to match '.*'$/, () => "has the wrong format"],
  [/^Expected string to match '.*' format$/, () => "must be a valid value"],
  [/^Expected (?:union value|value of enum|kind '.*')$/, () => "is not one of the accepted values"],
  [/^Expected required property$/, () => "is required"],
];

function _toHumanMessage(message: string): string {
  for (const [re, say] of HUMAN_MESSAGES) {
    const m = re.exec(message);
    if (m) return say(m);
  }
  return message.charAt(0).toLowerCase() + message.slice(1);
}
