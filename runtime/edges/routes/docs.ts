/**
 * GET /openapi.json, GET /docs and its assets: the published description and its human rendering
 * (Swagger UI served from this service), built once per build.
 */
import { getRouterParam } from "h3";
import { apiError } from "../../shared/errors.ts";
import { sendBytes } from "../../shared/http/respond.ts";
import { createOpenApiDocument } from "../openapi/document.ts";
import { DOCS_ASSETS, DOCS_CSP, type DocsAsset, readDocsAsset, renderDocsHtml } from "../openapi/render-docs.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const DECLARATIONS: RouteDeclaration[] = [
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
];

export default defineRoutes(DECLARATIONS, (route, deps, table) => {
  const cache = new WeakMap<object, { json: string; html: string }>();
  const assets = new Map<DocsAsset, Uint8Array>();
  const rendered = () => {
    const build = deps.build.current;
    let hit = cache.get(build);
    if (!hit) {
      const doc = createOpenApiDocument({
        routes: table,
        apiVersion: build.catalog.api_version,
        baseUrl: deps.config.publicBaseUrl,
        verticals: build.catalog.verticals,
      });
      hit = { json: JSON.stringify(doc), html: renderDocsHtml(doc) };
      cache.set(build, hit);
    }
    return hit;
  };
  route("getOpenApi", (event) => sendBytes(event, 200, rendered().json, { "cache-control": "public, max-age=300" }));
  route("getApiReference", (event) =>
    sendBytes(event, 200, rendered().html, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "public, max-age=300",
      "content-security-policy": DOCS_CSP,
    }),
  );
  route("getApiReferenceAsset", (event) => {
    const file = getRouterParam(event, "file") ?? "";
    if (!Object.hasOwn(DOCS_ASSETS, file)) throw apiError("not_found", { detail: "No such documentation asset." });
    const name = file as DocsAsset;
    // Kept as bytes: the bundle is 1.7 MB, not worth encoding again per request.
    let bytes = assets.get(name);
    if (bytes === undefined) assets.set(name, (bytes = Buffer.from(readDocsAsset(name))));
    return sendBytes(event, 200, bytes, { "content-type": DOCS_ASSETS[name], "cache-control": "public, max-age=86400" });
  });
});
