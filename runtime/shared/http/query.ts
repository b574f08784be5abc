/** Reading query parameters strictly: a repeated or malformed parameter is a 400, never a guess. */
import { apiError } from "../errors.ts";

/** The one value of `name`, or null when absent; a repeated parameter is ambiguous, so an error. */
export function readSingleParam(params: URLSearchParams, name: string): string | null {
  const all = params.getAll(name);
  if (all.length > 1)
    throw apiError("bad_request", { detail: `Give "${name}" once.`, errors: [{ pointer: `/query/${name}`, message: "repeated" }] });
  return all[0] ?? null;
}

/** `true`/`1` or `false`/`0`/empty/absent; anything else is a 400. */
export function readBooleanParam(params: URLSearchParams, name: string): boolean {
  const value = readSingleParam(params, name);
  if (value === null || value === "" || value === "false" || value === "0") return false;
  if (value === "true" || value === "1") return true;
  throw apiError("validation_failed", {
    detail: `"${name}" must be true or false.`,
    errors: [{ pointer: `/query/${name}`, message: "must be true or false" }],
  });
}

/** A decimal integer parameter, or null when absent; the range is the caller's to check. */
export function readIntegerParam(params: URLSearchParams, name: string): number | null {
  const value = readSingleParam(params, name);
  if (value === null) return null;
  if (!/^\d{1,9}$/.test(value))
    throw apiError("validation_failed", {
      detail: `"${name}" must be an integer.`,
      errors: [{ pointer: `/query/${name}`, message: "must be an integer" }],
    });
  return Number(value);
}
