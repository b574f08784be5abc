/**
 * A route is declared once (runtime/edges/routes/route-table.ts): the app serves exactly the declared
 * routes, each with an OpenAPI operation or a stated reason for none and a metrics decision; a
 * route file cannot register an undeclared path, and a declared route without a handler stops the
 * app from starting. The MCP tools named by the declarations are the server's tools.
 */
import { join } from "node:path";
import { H3 } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../runtime/app.ts";
import { TOOLS } from "../../runtime/edges/mcp/tools.ts";
import { createOpenApiDocument } from "../../runtime/edges/openapi/document.ts";
import { routerPath } from "../../runtime/edges/routes/route-declaration.ts";
import { assertEveryRouteBound, bindRoute, defineRoutes, ROUTES, retrievalRoutes } from "../../runtime/edges/routes/route-table.ts";
import { UNDOCUMENTED_ROUTES } from "../../runtime/edges/routes/undocumented-routes.ts";
import { REPO_ROOT } from "../build/_fixtures.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";

/** MCP tools with no REST route of their own (list_verticals reads the catalogue the build ships). */
const MCP_ONLY_TOOLS = ["list_verticals"];

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService(join(REPO_ROOT, "dist"));
});
afterAll(() => svc?.close());

const served = (app: H3) => app["~routes"].map((r) => `${r.method} ${r.route}`).sort();
const declared = () => ROUTES.map((r) => `${r.method.toUpperCase()} ${routerPath(r.path)}`).sort();

describe("route declarations", () => {
  it("the app serves exactly the declared routes", () => {
    expect(served(createApp(svc.service.deps))).toEqual(declared());
  });

  it("declares each route once, by one id and one method and path", () => {
    expect(new Set(ROUTES.map((r) => r.operationId)).size).toBe(ROUTES.length);
    expect(new Set(declared()).size).toBe(ROUTES.length);
  });

  it("gives every route an OpenAPI operation, or the reason it has none, and a metrics decision", () => {
    const doc = createOpenApiDocument({ apiVersion: "test" });
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    const undocumented = new Set(UNDOCUMENTED_ROUTES.map((r) => r.operationId));
    for (const route of ROUTES) {
      expect(["retrieval", "request"], route.operationId).toContain(route.metrics);
      if (undocumented.has(route.operationId)) continue;
      expect(documented, route.operationId).toContain(`${route.method} ${route.path}`);
    }
    expect(documented.length + undocumented.size).toBe(ROUTES.length);
  });

  it("counts as retrievals exactly the routes declared so", () => {
    expect([...retrievalRoutes()].sort()).toEqual(["/api/demo", "/api/evaluate", "/mcp", "/v1/delta"]);
  });

  it("refuses a handler for an undeclared route", () => {
    const plugin = defineRoutes((route) => route("getNothing", () => new Response("")));
    expect(() => new H3().register(plugin(svc.service.deps))).toThrow(/No route is declared as "getNothing"/);
  });

  it("refuses to start while a declared route has no handler", () => {
    const app = new H3();
    bindRoute(app, "health", () => new Response("ok"));
    expect(() => assertEveryRouteBound(app)).toThrow(/Declared routes without a handler: .*getDemo/);
  });

  it("names only the server's MCP tools, and every tool has a route or is MCP-only", () => {
    const named = ROUTES.flatMap((r) => r.mcp ?? []);
    expect(new Set(named).size).toBe(named.length);
    expect([...named, ...MCP_ONLY_TOOLS].sort()).toEqual(TOOLS.map((t) => t.name).sort());
  });
});
