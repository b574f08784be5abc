/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: a build is loaded and the store answers). */

import { Type } from "@sinclair/typebox";
import { apiError } from "../../shared/errors.ts";
import { sendJson } from "../../shared/http/respond.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/healthz",
    operationId: "health",
    metrics: "request",
    security: ["none"],
    summary: "Liveness",
    responses: { 200: { description: "The process answers", schema: Type.Object({ status: Type.Literal("ok") }) } },
  },
  {
    method: "get",
    path: "/readyz",
    operationId: "ready",
    metrics: "request",
    security: ["none"],
    summary: "Readiness: a verified build is loaded and the state store answers",
    responses: {
      200: { description: "Ready", schema: Type.Object({ status: Type.Literal("ready"), build_id: Type.String(), store: Type.String() }) },
      503: { description: "Store unavailable" },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
  route("health", (event) => sendJson(event, 200, { status: "ok" }));
  route("ready", async (event) => {
    const storeOk = await deps.backend.ping().catch(() => false);
    if (!storeOk) throw apiError("store_unavailable");
    return sendJson(event, 200, { status: "ready", build_id: deps.build.current.buildId, store: deps.backend.kind });
  });
});
