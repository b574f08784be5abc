/** GET /openapi.json and GET /docs: the published description and its human rendering, built once per build. */
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { sendBytes } from "../http/respond.ts";
import { createOpenApiDocument } from "../openapi/document.ts";
import { renderDocsHtml } from "../openapi/render-docs.ts";

export default definePlugin<AppDeps>((app, deps) => {
  const cache = new WeakMap<object, { json: string; html: string }>();
  const rendered = () => {
    const build = deps.build.current;
    let hit = cache.get(build);
    if (!hit) {
      const doc = createOpenApiDocument({ apiVersion: build.catalog.api_version, baseUrl: deps.config.publicBaseUrl });
      hit = { json: JSON.stringify(doc), html: renderDocsHtml(doc) };
      cache.set(build, hit);
    }
    return hit;
  };
  app.get("/openapi.json", (event) => sendBytes(event, 200, rendered().json, { "cache-control": "public, max-age=300" }));
  app.get("/docs", (event) =>
    sendBytes(event, 200, rendered().html, {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "public, max-age=300",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    }),
  );
});
