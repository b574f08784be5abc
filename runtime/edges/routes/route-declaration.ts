/**
 * The shape every route is declared in, once, beside its handler in its route file: the method
 * and path the router registers, the metrics decision, the OpenAPI text (or the reason there is
 * none) and the MCP tools that answer through the same function. `index.ts` lists the route
 * files; the router, the OpenAPI document, the metrics and the MCP server all read that table.
 */
import type { TSchema } from "@sinclair/typebox";
import type { ToolDefinition } from "../mcp/tool-definition.ts";

/**
 * How the metrics count a route's answers: `retrieval` adds its 2xx to `vkr_retrievals_total`
 * (what a key is metered for, REST and MCP alike); `request` only to the per-route request series.
 * Required, so a route cannot exist without that decision.
 */
export type RouteMetrics = "retrieval" | "request";

interface RouteBase {
  method: "get" | "post" | "delete" | "options";
  /** OpenAPI syntax (`/browse/{vertical}`); the router and the metrics label use h3's (`/browse/:vertical`). */
  path: string;
  /** The route's one name: the OpenAPI operationId, the id a handler is bound to. */
  operationId: string;
  metrics: RouteMetrics;
  /** The MCP tools that answer through the same function as this route, defined in its route file. */
  mcp?: readonly ToolDefinition[];
}

export interface OperationParam {
  name: string;
  in: "query" | "header" | "path";
  required?: boolean;
  schema: TSchema;
  description?: string;
}

/** A documented route: its declaration and its OpenAPI text. */
export interface Operation extends RouteBase {
  method: "get" | "post";
  summary: string;
  /**
   * Text, or text derived from the whole route table (POST /mcp lists the MCP tools the routes
   * declare), computed when the document is built.
   */
  description?: string | ((routes: readonly RouteDeclaration[]) => string);
  /** Required: "none" alone is anonymous (`security: []`); with others, anonymous is one of the options. */
  security: Array<"serviceKey" | "serviceKeyQuery" | "payToken" | "adminBearer" | "metricsBearer" | "none">;
  params?: OperationParam[];
  body?: TSchema;
  /** Success and error statuses; errors are problem+json. */
  responses: Record<number, { description: string; schema?: TSchema; headers?: string[]; content?: Record<string, TSchema> }>;
}

/** A route the OpenAPI description leaves out, with the reason. */
export interface UndocumentedRoute extends RouteBase {
  undocumented: string;
}

export type RouteDeclaration = Operation | UndocumentedRoute;

export function isDocumented(route: RouteDeclaration): route is Operation {
  return !("undocumented" in route);
}

/** `/browse/{vertical}` → `/browse/:vertical`: the pattern h3 matches and labels metrics with. */
export function routerPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}
