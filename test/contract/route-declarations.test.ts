/**
 * A route is declared once, beside its handler in its route file (runtime/edges/routes/index.ts
 * lists the files): the app serves exactly the declared routes, each with an OpenAPI operation or
 * a stated reason for none and a metrics decision; a route file cannot bind an id it does not
 * declare, and a declared route without a handler stops the app from starting. The MCP tools the
 * declarations carry, with the MCP-only ones, are the server's tools, and POST /mcp's description
 * names exactly those.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { H3 } from "h3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../runtime/app.ts";
import { MCP_ONLY_TOOLS, mcpTools } from "../../runtime/edges/mcp/tools.ts";
import { createOpenApiDocument } from "../../runtime/edges/openapi/document.ts";
import { ROUTE_FILES, ROUTES } from "../../runtime/edges/routes/index.ts";
import { isDocumented, routerPath } from "../../runtime/edges/routes/route-declaration.ts";
import { assertEveryRouteBound, bindRoute, defineRoutes, retrievalRoutes } from "../../runtime/edges/routes/route-table.ts";
import { REPO_ROOT } from "../build/_fixtures.ts";
import { startTestService, type TestService } from "../helpers/test-service.ts";

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
    const doc = createOpenApiDocument({ apiVersion: "test", routes: ROUTES });
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`));
    const undocumented = ROUTES.filter((r) => !isDocumented(r));
    for (const route of ROUTES) {
      expect(["retrieval", "request"], route.operationId).toContain(route.metrics);
      if (isDocumented(route)) expect(documented, route.operationId).toContain(`${route.method} ${route.path}`);
      else expect(route.undocumented.length, route.operationId).toBeGreaterThan(0);
    }
    expect(documented.length + undocumented.length).toBe(ROUTES.length);
  });

  it("counts as retrievals exactly the routes declared so", () => {
    expect([...retrievalRoutes(ROUTES)].sort()).toEqual(["/api/demo", "/api/evaluate", "/mcp", "/v1/delta"]);
  });

  it("refuses a handler for a route its file does not declare", () => {
    const file = defineRoutes([], (route) => route("health", () => new Response("")));
    expect(() => new H3().register(file.plugin(svc.service.deps, ROUTES))).toThrow(/No route is declared as "health" in this route file/);
  });

  it("refuses to start while a declared route has no handler", () => {
    const app = new H3();
    bindRoute(app, ROUTES.find((r) => r.operationId === "health")!, () => new Response("ok"));
    expect(() => assertEveryRouteBound(app, ROUTES)).toThrow(/Declared routes without a handler: .*getDemo/);
  });

  it("refuses to start when a route file is left out of the index", () => {
    const app = new H3();
    for (const file of ROUTE_FILES.filter((f) => !f.routes.some((r) => r.operationId === "getDelta")))
      app.register(file.plugin(svc.service.deps, ROUTES));
    expect(() => assertEveryRouteBound(app, ROUTES)).toThrow(/Declared routes without a handler: getDelta$/);
  });

  it("lists every route file in the index, so none is left unserved and undocumented", async () => {
    const dirs = ["runtime/edges/routes", "runtime/edges/mcp"];
    const files = dirs.flatMap((dir) => readdirSync(join(REPO_ROOT, dir)).map((name) => join(REPO_ROOT, dir, name)));
    const routeFiles = files.filter((file) => file.endsWith(".ts") && /^export default defineRoutes\(/m.test(readFileSync(file, "utf8")));
    expect(routeFiles.length).toBe(ROUTE_FILES.length);
    for (const file of routeFiles) expect(ROUTE_FILES, file).toContain((await import(file)).default);
  });

  it("serves each tool once: the routes' tools and the MCP-only ones", () => {
    const tools = mcpTools(ROUTES).map((t) => t.name);
    expect(new Set(tools).size).toBe(tools.length);
    expect(tools.slice(0, MCP_ONLY_TOOLS.length)).toEqual(MCP_ONLY_TOOLS.map((t) => t.name));
    // The order clients were shown before tools moved beside their routes; a new tool without a rank comes after.
    expect(tools.slice(0, 7)).toEqual(["list_verticals", "get_index", "get_node", "search", "evaluate_rules", "get_changes", "verify_key"]);
  });

  it("lists in POST /mcp's description exactly the tools tools/list shows, in its order", () => {
    const doc = createOpenApiDocument({ apiVersion: "test", routes: ROUTES });
    const description = (doc.paths["/mcp"] as { post: { description: string } }).post.description;
    // "get_node (lean, layers)": a listing may add a parenthesis after the name.
    const listed = /Tools: (.*?), each with/
      .exec(description)?.[1]
      ?.replace(/ \([^)]*\)/g, "")
      .split(", ")
      .map((t) => t.split(" ")[0]);
    expect(listed).toEqual(mcpTools(ROUTES).map((t) => t.name));
  });
});
