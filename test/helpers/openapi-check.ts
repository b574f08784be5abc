/**
 * Validates a response against the published OpenAPI description: the operation is found by
 * method and path, the status must be documented (or fall to `default` for problems), and the body
 * must match the documented schema. Every e2e request goes through this, so "every response body
 * validates against /openapi.json" is checked on everything the suites do.
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createOpenApiDocument } from "../../runtime/edges/openapi/document.ts";
import { ROUTES } from "../../runtime/edges/routes/index.ts";

type Doc = ReturnType<typeof createOpenApiDocument>;

type Checker = (method: string, path: string, status: number, contentType: string | null, body: unknown) => string[];

/**
 * The checker of the published description is made once per worker and shared by every service
 * the worker's files start: the description is the same for all of them, and each compiled
 * validator (about 17 ms, most of it walking the components) is then paid once, not once per
 * service. A description of its own (`doc`) gets a checker of its own.
 */
let published: Checker | undefined;

export function createOpenApiChecker(doc?: Doc): Checker {
  if (doc !== undefined) return _checker(doc);
  return (published ??= _checker(createOpenApiDocument({ apiVersion: "test", routes: ROUTES })));
}

// --- Internal helpers ---

function _checker(doc: Doc): Checker {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  (addFormats as unknown as { default: (a: unknown) => void }).default(ajv);
  const cache = new Map<string, ReturnType<typeof ajv.compile>>();

  return function check(method, path, status, contentType, body) {
    const op = _findPathItem(doc.paths as Record<string, Record<string, any>>, path)?.[method.toLowerCase()];
    if (!op) return [`${method} ${path} is not in the OpenAPI description`];
    if (status === 304 || status === 204) return [];
    const response = op.responses[String(status)] ?? (status >= 400 ? op.responses.default : undefined);
    if (!response) return [`${method} ${path} ${status} is not documented`];
    if (!response.content) return body === null || body === "" ? [] : [`${method} ${path} ${status} has an undocumented body`];
    // A negotiated response documents several media types: check against the one that was sent.
    const entries = Object.entries(response.content as Record<string, { schema: unknown }>);
    const [mediaType, media] = entries.find(([t]) => contentType?.startsWith(t)) ?? entries[0]!;
    if (contentType && !contentType.startsWith(mediaType))
      return [`${method} ${path} ${status}: content-type ${contentType}, documented ${mediaType}`];
    const schema = mediaType === "application/problem+json" ? { $ref: "#/components/schemas/Problem" } : media.schema;
    const key = `${method} ${path} ${status} ${mediaType}`;
    let validate = cache.get(key);
    // Wrapping keeps `#/components/...` references resolvable against a root that has them.
    if (!validate) cache.set(key, (validate = ajv.compile({ allOf: [schema], components: doc.components })));
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${key}: ${e.instancePath} ${e.message}`);
  };
}

/** The path item for a concrete path: an exact entry, else a templated one (`/browse/{vertical}`). */
function _findPathItem(paths: Record<string, Record<string, any>>, path: string): Record<string, any> | undefined {
  if (paths[path]) return paths[path];
  const segments = path.split("/");
  for (const [template, item] of Object.entries(paths)) {
    const parts = template.split("/");
    if (
      parts.length === segments.length &&
      parts.every((p, i) => (p.startsWith("{") && p.endsWith("}") ? segments[i] !== "" : p === segments[i]))
    )
      return item;
  }
  return undefined;
}
