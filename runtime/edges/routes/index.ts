/**
 * Every route file, in the order the app registers them and the OpenAPI document lists their
 * operations: the one list a new route file is added to. Each file declares its routes beside
 * their handlers; the router (`createApp`), the OpenAPI document, the metrics and the MCP tools
 * read the table joined here, and `createApp` refuses to start while a declared route has no
 * handler.
 */
import mcp from "../mcp/index.ts";
import adminAudit from "./admin-audit.ts";
import adminKeys from "./admin-keys.ts";
import adminPayments from "./admin-payments.ts";
import browse from "./browse.ts";
import checkout from "./checkout.ts";
import checkoutSuccess from "./checkout-success.ts";
import delta from "./delta.ts";
import demo from "./demo.ts";
import docs from "./docs.ts";
import evaluate from "./evaluate.ts";
import health from "./health.ts";
import interest from "./interest.ts";
import jwks from "./jwks.ts";
import keys from "./keys.ts";
import metrics from "./metrics.ts";
import preflight from "./preflight.ts";
import referral from "./referral.ts";
import { isDocumented, type Operation, type RouteDeclaration } from "./route-declaration.ts";
import type { RouteFile } from "./route-table.ts";
import search from "./search.ts";
import status from "./status.ts";
import telemetry from "./telemetry.ts";
import trial from "./trial.ts";
import verify from "./verify.ts";
import waitlist from "./waitlist.ts";

export const ROUTE_FILES: readonly RouteFile[] = [
  preflight,
  status,
  demo,
  evaluate,
  delta,
  trial,
  keys,
  verify,
  health,
  docs,
  adminKeys,
  adminAudit,
  metrics,
  browse,
  waitlist,
  interest,
  telemetry,
  referral,
  search,
  mcp,
  checkout,
  checkoutSuccess,
  adminPayments,
  jwks,
];

/** Every declared route, file by file. */
export const ROUTES: readonly RouteDeclaration[] = ROUTE_FILES.flatMap((f) => f.routes);

/** The published operations, in the order /openapi.json lists them. */
export const OPERATIONS: readonly Operation[] = ROUTES.filter(isDocumented);
