/** OPTIONS on every path: the CORS preflight, answered before anything else looks at the request. */
import { requestContext } from "../../shared/http/context.ts";
import { preflightHeaders } from "../../shared/http/headers.ts";
import { sendBytes } from "../../shared/http/respond.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const DECLARATIONS: RouteDeclaration[] = [
  { method: "options", path: "/**", operationId: "preflight", metrics: "request", undocumented: "the CORS preflight of every path" },
];

export default defineRoutes(DECLARATIONS, (route) =>
  route("preflight", (event) =>
    sendBytes(event, 204, null, { ...preflightHeaders(requestContext(event).requestId), "content-type": "text/plain" }),
  ),
);
