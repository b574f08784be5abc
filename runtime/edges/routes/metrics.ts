/**
 * GET /metrics: the Prometheus text exposition of this app's registry. With METRICS_TOKEN set the
 * scrape needs `Authorization: Bearer <token>` (missing 401, wrong 403, as for admin routes);
 * without it the endpoint is open, for scrapers on a private network.
 */

import { Type } from "@sinclair/typebox";
import { secretsEqual } from "../../domain/keys/key-secret.ts";
import { apiError } from "../../shared/errors.ts";
import { sendBytes } from "../../shared/http/respond.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/metrics",
    operationId: "getMetrics",
    metrics: "request",
    security: ["metricsBearer", "none"],
    summary: "Prometheus metrics",
    description: [
      "Prometheus text exposition: `vkr_http_requests_total{route,method,status}`, `vkr_http_request_duration_seconds{route,method}` (histogram), `vkr_retrievals_total{route}` (2xx on /api/demo, /api/evaluate, /v1/delta, /mcp), `vkr_quota_denials_total{window,code}` (window: hour, day, month, pool, trial, or `client` for per-address limits), `vkr_build_info{build_id,api_version}` and `vkr_store_up{store}` (pinged at scrape time), plus none of prom-client's process defaults., `vkr_payment_outcomes_total{method,outcome}` (POST /api/checkout by payment_method; outcome issued 201, redirect 303, failed 402, conflict 409, unavailable 503, info 200, else the status number)",
      "`route` is the matched route pattern (`unmatched` for 404s), never the raw path, so label values stay bounded. Counters are per process: scrape every instance.",
      "With METRICS_TOKEN set a bearer is required (missing 401 `admin_auth_missing`, wrong 403 `admin_auth_invalid`); unset, the endpoint is open.",
    ].join("\n\n"),
    responses: {
      200: { description: "Metrics in Prometheus text format 0.0.4", content: { "text/plain": Type.String() } },
      401: { description: "METRICS_TOKEN is set and no bearer was sent" },
      403: { description: "Wrong bearer" },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("getMetrics", async (event) => {
    const metrics = deps.metrics;
    if (!metrics) throw apiError("not_found", { detail: "Metrics are not enabled on this app." });
    _assertMetricsToken(event.req.headers, deps.config.metricsToken);
    const text = await metrics.registry.metrics();
    return sendBytes(event, 200, text, { "content-type": metrics.registry.contentType, "cache-control": "no-store" });
  });
});

// --- Internal helpers ---

function _assertMetricsToken(headers: Headers, token: string | undefined): void {
  if (token === undefined) return;
  const auth = headers.get("authorization");
  if (!auth || !/^bearer\s+\S/i.test(auth))
    throw apiError("admin_auth_missing", { detail: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>." });
  if (!secretsEqual(auth.replace(/^bearer\s+/i, "").trim(), token))
    throw apiError("admin_auth_invalid", { detail: "The metrics token is not valid." });
}
