/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: a build is loaded and the store answers). */
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { apiError } from "../errors.ts";
import { sendJson } from "../http/respond.ts";

export default definePlugin<AppDeps>((app, deps) => {
  app.get("/healthz", (event) => sendJson(event, 200, { status: "ok" }));
  app.get("/readyz", async (event) => {
    const storeOk = await deps.backend.ping().catch(() => false);
    if (!storeOk) throw apiError("store_unavailable");
    return sendJson(event, 200, { status: "ready", build_id: deps.build.current.buildId, store: deps.backend.kind });
  });
});
