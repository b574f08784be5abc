/**
 * Builds the OpenAPI 3.1 description from the route table (`runtime/edges/routes/index.ts`, passed
 * in: this file imports no route, so the route that serves the document can import it). TypeBox
 * schemas are plain JSON Schema once their symbol keys are dropped, so the published schemas are
 * the validators' own.
 */
import type { TSchema } from "@sinclair/typebox";
import { describeVerticalAccess } from "../../domain/access/vertical-groups.ts";
import { ERRORS } from "../../shared/errors.ts";
import type { ResolvedVertical } from "../../shared/schema/catalog.ts";
import { ProblemSchema } from "../../shared/schema/responses.ts";
import { isDocumented, type Operation, type RouteDeclaration } from "../routes/route-declaration.ts";
import { TAGS, tagOf } from "./tags.ts";

/**
 * `verticals` (the build's resolved catalogue) adds the paragraph naming the verticals and their
 * access to the operations whose answer depends on it; without it (the generated client) the text
 * stays general.
 */
export function createOpenApiDocument(options: {
  apiVersion: string;
  baseUrl?: string | undefined;
  /** Every declared route; the undocumented ones are left out. */
  routes: readonly RouteDeclaration[];
  verticals?: readonly ResolvedVertical[];
}) {
  const paths: Record<string, Record<string, unknown>> = {};
  const shared: Record<string, unknown> = { Problem: toJsonSchema(ProblemSchema, {}) };
  const access = options.verticals ? describeVerticalAccess(options.verticals) : null;
  for (const op of options.routes.filter(isDocumented)) {
    const item = (paths[op.path] ??= {});
    const text = typeof op.description === "function" ? op.description(options.routes) : op.description;
    const description = access && CATALOGUE_DEPENDENT.has(op.operationId) ? `${text ?? ""}\n\n${access}`.trim() : text;
    item[op.method] = _operation(op, description, shared);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Vertical Knowledge Retrieval Service",
      version: options.apiVersion,
      description: "Structured, cited knowledge for AI agents. Errors are RFC 9457 problem+json with a stable `code` (see x-error-codes).",
      // The package is private and ships no licence file: all rights reserved.
      license: { name: "Proprietary" },
    },
    servers: [{ url: options.baseUrl ?? "/" }],
    tags: TAGS.map((t) => ({ ...t })),
    paths,
    components: {
      schemas: shared,
      securitySchemes: {
        serviceKey: { type: "apiKey", in: "header", name: "X-Service-Key" },
        serviceKeyQuery: { type: "apiKey", in: "query", name: "key" },
        payToken: { type: "apiKey", in: "header", name: "pay-network-pay-id" },
        adminBearer: { type: "http", scheme: "bearer", description: "ADMIN_KEY" },
        metricsBearer: {
          type: "http",
          scheme: "bearer",
          description: "METRICS_TOKEN; required only when it is set (unset, /metrics is open)",
        },
      },
    },
    "x-error-codes": Object.fromEntries(
      Object.entries(ERRORS).map(([code, d]) => [code, { status: d.status, title: d.title, ...("hint" in d ? { hint: d.hint } : {}) }]),
    ),
  };
}

/** Operations whose answer depends on which verticals are live and how they open. */
const CATALOGUE_DEPENDENT = new Set(["getDemo", "createTrial"]);

/**
 * A TypeBox schema as plain JSON Schema (no symbol keys). Recursive schemas carry an `$id` and
 * may appear in several places of one response; they are hoisted into `shared` (the document's
 * components) and referenced, so every `$id` is defined exactly once.
 */
export function toJsonSchema(schema: TSchema, shared: Record<string, unknown>): Record<string, unknown> {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return _hoist(plain, shared) as Record<string, unknown>;
}

// --- Internal helpers ---

function _hoist(node: unknown, shared: Record<string, unknown>, ids: Set<string> = new Set()): unknown {
  if (Array.isArray(node)) return node.map((n) => _hoist(n, shared, ids));
  if (!node || typeof node !== "object") return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === "string" && !obj.$ref.startsWith("#")) return { $ref: `#/components/schemas/${obj.$ref}` };
  if (typeof obj.$id === "string") {
    const id = obj.$id;
    if (!(id in shared)) {
      shared[id] = {};
      const { $id: _drop, ...rest } = obj;
      shared[id] = _hoist(rest, shared, ids);
    }
    return { $ref: `#/components/schemas/${id}` };
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, _hoist(v, shared, ids)]));
}

function _operation(op: Operation, description: string | undefined, shared: Record<string, unknown>) {
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(op.responses)) {
    const code = Number(status);
    const headers = r.headers ? Object.fromEntries(r.headers.map((h) => [h, { schema: { type: "string" } }])) : undefined;
    // Errors are problem+json unless the operation names its own body (POST /mcp: JSON-RPC errors).
    if (code >= 400 && !r.content) {
      responses[status] = {
        description: r.description,
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
        ...(headers ? { headers } : {}),
      };
    } else if (r.content) {
      // Non-JSON or negotiated bodies (HTML, Prometheus text, markdown): one entry per media type.
      const content = Object.fromEntries(
        Object.entries(r.content).map(([type, schema]) => [type, { schema: toJsonSchema(schema, shared) }]),
      );
      responses[status] = { description: r.description, content, ...(headers ? { headers } : {}) };
    } else if (r.schema) {
      responses[status] = {
        description: r.description,
        content: { "application/json": { schema: toJsonSchema(r.schema, shared) } },
        ...(headers ? { headers } : {}),
      };
    } else {
      responses[status] = { description: r.description, ...(headers ? { headers } : {}) };
    }
  }
  responses.default = {
    description: "Any other error",
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  };
  return {
    operationId: op.operationId,
    tags: [tagOf(op.path)],
    summary: op.summary,
    ...(description ? { description } : {}),
    security: _security(op.security),
    ...(op.params
      ? {
          parameters: op.params.map((p) => ({
            name: p.name,
            in: p.in,
            required: p.required ?? false,
            schema: toJsonSchema(p.schema, shared),
            ...(p.description ? { description: p.description } : {}),
          })),
        }
      : {}),
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: toJsonSchema(op.body, shared) } } } } : {}),
    responses,
  };
}

/** `[]` for anonymous-only operations; otherwise each scheme, with `{}` where anonymous is also served. */
function _security(schemes: Operation["security"]): Array<Record<string, string[]>> {
  if (schemes.every((s) => s === "none")) return [];
  return schemes.map((s) => (s === "none" ? {} : { [s]: [] }));
}
