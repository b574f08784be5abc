/**
 * ajv over TypeBox schemas: collects every error and turns ajv's output into field paths and
 * readable messages. Build-only: the runtime never ships ajv (docs/architecture.md, test/contract/boundaries.test.ts).
 */

import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ErrorObject } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FieldPath } from "../locate.ts";

export interface SchemaError {
  path: FieldPath;
  message: string;
}

/** A compiled check: the list of errors, empty when the value conforms. */
export type CheckValue = (value: unknown) => SchemaError[];

// ajv-formats ships CJS with a default export; under NodeNext the callable sits on `.default`.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);

/**
 * Checks each schema against the draft-07 meta-schema before it is compiled, as ajv's default
 * `validateSchema` does, but with one compiled meta-schema: ajv compiles it once per instance, and
 * with an instance per schema that was half of all schema compiling in a build.
 */
let metaChecker: Ajv | undefined;

/**
 * One ajv instance per schema, so recursive schemas with the same `$id` (gates) never collide.
 * @example const check = compileSchema(NodeFrontmatterSchema); check(data) // [] when valid
 */
export function compileSchema(schema: TSchema): CheckValue {
  metaChecker ??= addFormats(new Ajv({ strict: false }));
  if (!metaChecker.validateSchema(schema)) throw new Error(`schema is invalid: ${metaChecker.errorsText(metaChecker.errors)}`);
  const ajv = new Ajv({ allErrors: true, strict: false, verbose: true, validateSchema: false });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? [] : _toSchemaErrors(validate.errors ?? []));
}

// --- Internal helpers ---

/**
 * A union failure makes ajv report every branch; only the deepest union failure says something
 * an author can act on, so branch noise under it is dropped.
 */
function _toSchemaErrors(errors: ErrorObject[]): SchemaError[] {
  const unionPaths = errors.filter((e) => e.keyword === "anyOf").map((e) => e.instancePath);
  const deepest = unionPaths.filter((p) => !unionPaths.some((q) => q !== p && q.startsWith(p + "/")));
  const seen = new Set<string>();
  const out: SchemaError[] = [];
  for (const error of errors) {
    const under = unionPaths.some((p) => error.instancePath === p || error.instancePath.startsWith(p + "/"));
    if (under && !(error.keyword === "anyOf" && deepest.includes(error.instancePath))) continue;
    const item = _describe(error);
    const key = JSON.stringify(item);
    if (!seen.has(key)) out.push(item), seen.add(key);
  }
  return out;
}

function _describeUnion(error: ErrorObject): string {
  const branches = Array.isArray(error.schema) ? (error.schema as Array<Record<string, unknown>>) : [];
  if (branches.length > 0 && branches.every((b) => "const" in b)) {
    return `must be one of ${branches.map((b) => JSON.stringify(b.const)).join(", ")}`;
  }
  if ((error.parentSchema as { $id?: string } | undefined)?.$id === "AuthoredGate") {
    return "is not a valid gate: use a fact or outcome name, { all: [...] }, { any: [...] } or { not: gate } (lists need at least one item)";
  }
  return "does not match any of the allowed shapes";
}

function _describe(error: ErrorObject): SchemaError {
  const path: Array<string | number> = error.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return { path: [...path, String(params.missingProperty)], message: "is required" };
    case "additionalProperties":
      return { path: [...path, String(params.additionalProperty)], message: "is not a known field" };
    case "anyOf":
      return { path, message: _describeUnion(error) };
    case "pattern": {
      // A schema that describes its format (authored dates) is explained in words, not as a regex.
      const description = (error.parentSchema as { description?: unknown } | undefined)?.description;
      if (typeof description === "string") return { path, message: `${JSON.stringify(error.data)} is not ${description}` };
      return { path, message: `${error.message ?? "has the wrong format"}` };
    }
    case "enum":
    case "const":
      return { path, message: `must be one of ${JSON.stringify(params.allowedValues ?? params.allowedValue)}` };
    default:
      return { path, message: error.message ?? "is invalid" };
  }
}
