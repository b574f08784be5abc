/**
 * The shape every route is declared in, once: what the router registers, what the metrics count
 * and which MCP tools serve the same function. Documented routes declare it inside their OpenAPI
 * operation (`runtime/edges/openapi/operations*.ts`), the few undocumented ones in
 * `undocumented-routes.ts`; `route-table.ts` joins both and binds handlers to them by id.
 */

/**
 * How the metrics count a route's answers: `retrieval` adds its 2xx to `vkr_retrievals_total`
 * (what a key is metered for, REST and MCP alike); `request` only to the per-route request series.
 * Required, so a route cannot exist without that decision.
 */
export type RouteMetrics = "retrieval" | "request";

export interface RouteDeclaration {
  method: "get" | "post" | "delete" | "options";
  /** OpenAPI syntax (`/browse/{vertical}`); the router and the metrics label use h3's (`/browse/:vertical`). */
  path: string;
  /** The route's one name: the OpenAPI operationId, the id a handler is bound to. */
  operationId: string;
  metrics: RouteMetrics;
  /** The MCP tools (`runtime/edges/mcp/tools.ts`) that answer through the same function as this route. */
  mcp?: readonly string[];
}

/** `/browse/{vertical}` → `/browse/:vertical`: the pattern h3 matches and labels metrics with. */
export function routerPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}
