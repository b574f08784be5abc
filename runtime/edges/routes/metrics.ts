/**
 * GET /metrics: the Prometheus text exposition of this app's registry. With METRICS_TOKEN set the
 * scrape needs `Authorization: Bearer <token>` (missing 401, wrong 403, as for admin routes);
 * without it the endpoint is open, for scrapers on a private network.
 */

import { secretsEqual } from "../../domain/keys/key-secret.ts";
import { apiError } from "../../shared/errors.ts";
import { sendBytes } from "../../shared/http/respond.ts";
import { defineRoutes } from "./route-table.ts";

export default defineRoutes((route, deps) => {
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
