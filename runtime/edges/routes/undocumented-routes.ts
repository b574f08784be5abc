/**
 * The routes the OpenAPI description leaves out, each with the reason: the description itself and
 * its viewer, the 405s that keep /mcp POST-only, and the preflight every path answers. Everything
 * else is declared with its operation in `runtime/edges/openapi/operations*.ts`.
 */
import type { RouteDeclaration } from "./route-declaration.ts";

export interface UndocumentedRoute extends RouteDeclaration {
  /** Why the route has no OpenAPI operation. */
  undocumented: string;
}

export const UNDOCUMENTED_ROUTES: readonly UndocumentedRoute[] = [
  {
    method: "get",
    path: "/openapi.json",
    operationId: "getOpenApi",
    metrics: "request",
    undocumented: "the description does not describe itself",
  },
  { method: "get", path: "/docs", operationId: "getApiReference", metrics: "request", undocumented: "the viewer of the description" },
  {
    method: "get",
    path: "/docs/assets/{file}",
    operationId: "getApiReferenceAsset",
    metrics: "request",
    undocumented: "the viewer's scripts and styles",
  },
  {
    method: "get",
    path: "/mcp",
    operationId: "mcpGetNotAllowed",
    metrics: "request",
    undocumented: "a 405 (Allow: POST), described under POST /mcp",
  },
  {
    method: "delete",
    path: "/mcp",
    operationId: "mcpDeleteNotAllowed",
    metrics: "request",
    undocumented: "a 405 (Allow: POST), described under POST /mcp",
  },
  { method: "options", path: "/**", operationId: "preflight", metrics: "request", undocumented: "the CORS preflight of every path" },
];
