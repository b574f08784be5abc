/**
 * How a route file binds handlers to the routes it declares, and the checks over the whole table
 * (`index.ts`): a file binds only ids it declares, `createApp` refuses to start while a declared
 * route has no handler, and the metrics take their retrieval routes from the same table. A route
 * cannot be served without its OpenAPI operation (or its reason for having none) and its metrics
 * decision.
 */
import { definePlugin, type EventHandler, type H3, type H3Plugin } from "h3";
import type { EdgeDeps } from "../edge-deps.ts";
import { type RouteDeclaration, routerPath } from "./route-declaration.ts";

/** Binds `handler` to the route declared as `operationId` in the same file. */
export type BindRoute = (operationId: string, handler: EventHandler) => void;

/**
 * A route file: its declarations (plain data, read without building anything) and the plugin
 * binding their handlers. `table` is every declared route, for the few handlers that describe the
 * whole service (the OpenAPI document, the MCP tool list).
 */
export interface RouteFile {
  readonly routes: readonly RouteDeclaration[];
  plugin(deps: EdgeDeps, table: readonly RouteDeclaration[]): H3Plugin;
}

/**
 * @example export default defineRoutes([{ method: "get", path: "/v1/delta", operationId: "getDelta", … }],
 *   (route, deps) => route("getDelta", (event) => …))
 */
export function defineRoutes(
  routes: readonly RouteDeclaration[],
  setup: (route: BindRoute, deps: EdgeDeps, table: readonly RouteDeclaration[]) => void,
): RouteFile {
  const byId = new Map(routes.map((r) => [r.operationId, r]));
  const plugin = definePlugin<{ deps: EdgeDeps; table: readonly RouteDeclaration[] }>((app, { deps, table }) =>
    setup(
      (operationId, handler) => {
        const route = byId.get(operationId);
        if (!route) throw new Error(`No route is declared as "${operationId}" in this route file: declare it beside its handler`);
        bindRoute(app, route, handler);
      },
      deps,
      table,
    ),
  );
  return { routes, plugin: (deps, table) => plugin({ deps, table }) };
}

export function bindRoute(app: H3, route: RouteDeclaration, handler: EventHandler): void {
  let bound = BOUND.get(app);
  if (!bound) BOUND.set(app, (bound = new Set()));
  if (bound.has(route.operationId)) throw new Error(`Route "${route.operationId}" is bound twice`);
  bound.add(route.operationId);
  app.on(route.method, routerPath(route.path), handler);
}

/** Thrown at start, so a declared route without a handler never ships as a 404 in the description. */
export function assertEveryRouteBound(app: H3, table: readonly RouteDeclaration[]): void {
  const bound = BOUND.get(app);
  const missing = table.filter((r) => !bound?.has(r.operationId)).map((r) => r.operationId);
  if (missing.length) throw new Error(`Declared routes without a handler: ${missing.join(", ")}`);
}

/** The route patterns whose 2xx answers count as retrievals (`vkr_retrievals_total`). */
export function retrievalRoutes(table: readonly RouteDeclaration[]): ReadonlySet<string> {
  return new Set(table.filter((r) => r.metrics === "retrieval").map((r) => routerPath(r.path)));
}

// --- Internal helpers ---

const BOUND = new WeakMap<H3, Set<string>>();
