/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: a build is loaded and the store answers). */

import { apiError } from "../../shared/errors.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { defineRoutes } from "./route-table.ts";

export default defineRoutes((route, deps) => {
  route("health", (event) => sendJson(event, 200, { status: "ok" }));
  route("ready", async (event) => {
    const storeOk = await deps.backend.ping().catch(() => false);
    if (!storeOk) throw apiError("store_unavailable");
    return sendJson(event, 200, { status: "ready", build_id: deps.build.current.buildId, store: deps.backend.kind });
  });
});
