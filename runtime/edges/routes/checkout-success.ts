/**
 * GET /checkout/success?session_id=…: the page Stripe returns a card buyer to. HTML for browsers,
 * JSON with `Accept: application/json`; the keys appear once (see payments/methods/card/card-success.ts).
 */

import { SESSION_ID_RE, viewCardSuccess } from "../../domain/payments/methods/card/card-success.ts";
import { renderCardSuccess } from "../../domain/payments/methods/card/render-card-success.ts";
import { apiError } from "../../shared/errors.ts";
import { requestContext } from "../../shared/http/context.ts";
import { readSingleParam } from "../../shared/http/query.ts";
import { sendBytes, sendJson } from "../../shared/http/respond.ts";
import { prefersJson } from "../browse/describe-service.ts";
import { defineRoutes } from "./route-table.ts";

/** The page carries inline styles only; nothing may frame it or load anything. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

export default defineRoutes((route, deps) => {
  route("cardSuccess", async (event) => {
    const sessionId = readSingleParam(requestContext(event).url.searchParams, "session_id");
    if (sessionId === null || !SESSION_ID_RE.test(sessionId)) {
      throw apiError("validation_failed", {
        detail: "session_id must be the Stripe Checkout Session id (cs_…).",
        errors: [{ pointer: "/query/session_id", message: "a Stripe session id" }],
      });
    }
    const view = await viewCardSuccess(deps, sessionId, deps.clock.now());
    const status = view.status === "unknown" ? 404 : 200;
    // Keys are on this answer: never stored by a cache, never sent as a referrer.
    const headers = { "cache-control": "no-store", vary: "Accept" };
    if (prefersJson(event.req.headers.get("accept"))) return sendJson(event, status, view, headers);
    return sendBytes(event, status, renderCardSuccess(view), {
      ...headers,
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": PAGE_CSP,
    });
  });
});
