/**
 * Every route of the app, read from its one declaration: the router registers a handler only
 * under a declared id, `createApp` refuses to start while a declared route has no handler, and the
 * metrics take their retrieval routes from the same table. A route cannot be served without its
 * OpenAPI operation (or its reason for having none) and its metrics decision.
 */
import { definePlugin, type EventHandler, type H3, type H3Plugin } from "h3";
import type { EdgeDeps } from "../edge-deps.ts";
import { OPERATIONS } from "../openapi/operations.ts";
import { type RouteDeclaration, routerPath } from "./route-declaration.ts";
import { UNDOCUMENTED_ROUTES } from "./undocumented-routes.ts";

/** Documented routes in OpenAPI order, then the undocumented ones. */
export const ROUTES: readonly RouteDeclaration[] = [...OPERATIONS, ...UNDOCUMENTED_ROUTES];

/** Binds `handler` to the route declared as `operationId`. */
export type BindRoute = (operationId: string, handler: EventHandler) => void;

/**
 * A route file's plugin: it binds handlers to declared routes and never names a method or path
 * itself. @example export default defineRoutes((route, deps) => route("getDelta", (event) => …))
 */
export function defineRoutes(setup: (route: BindRoute, deps: EdgeDeps) => void): (deps: EdgeDeps) => H3Plugin {
  return definePlugin<EdgeDeps>((app, deps) => setup((operationId, handler) => bindRoute(app, operationId, handler), deps));
}

export function bindRoute(app: H3, operationId: string, handler: EventHandler): void {
  const route = BY_ID.get(operationId);
  if (!route) throw new Error(`No route is declared as "${operationId}": declare it in runtime/edges/openapi/operations*.ts`);
  let bound = BOUND.get(app);
  if (!bound) BOUND.set(app, (bound = new Set()));
  if (bound.has(operationId)) throw new Error(`Route "${operationId}" is bound twice`);
  bound.add(operationId);
  app.on(route.method, routerPath(route.path), handler);
}

/** Thrown at start, so a declared route without a handler never ships as a 404 in the description. */
export function assertEveryRouteBound(app: H3): void {
  const bound = BOUND.get(app);
  const missing = ROUTES.filter((r) => !bound?.has(r.operationId)).map((r) => r.operationId);
  if (missing.length) throw new Error(`Declared routes without a handler: ${missing.join(", ")}`);
}

/** The route patterns whose 2xx answers count as retrievals (`vkr_retrievals_total`). */
export function retrievalRoutes(): ReadonlySet<string> {
  return new Set(ROUTES.filter((r) => r.metrics === "retrieval").map((r) => routerPath(r.path)));
}

// --- Internal helpers ---

const BY_ID = new Map(ROUTES.map((r) => [r.operationId, r]));
const BOUND = new WeakMap<H3, Set<string>>();
