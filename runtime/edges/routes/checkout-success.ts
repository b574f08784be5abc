/**
 * GET /checkout/success?session_id=…: the page Stripe returns a card buyer to. HTML for browsers,
 * JSON with `Accept: application/json`; the keys appear once (see payments/methods/card/card-success.ts).
 */

import { Type } from "@sinclair/typebox";
import { SESSION_ID_RE, viewCardSuccess } from "../../domain/payments/methods/card/card-success.ts";
import { renderCardSuccess } from "../../domain/payments/methods/card/render-card-success.ts";
import { CardSuccessSchema } from "../../domain/payments/payment-schemas.ts";
import { apiError } from "../../shared/errors.ts";
import { requestContext } from "../../shared/http/context.ts";
import { readSingleParam } from "../../shared/http/query.ts";
import { sendBytes, sendJson } from "../../shared/http/respond.ts";
import { prefersJson } from "../browse/describe-service.ts";
import type { RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

/** The page carries inline styles only; nothing may frame it or load anything. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/checkout/success",
    operationId: "cardSuccess",
    metrics: "request",
    security: ["none"],
    summary: "Card checkout: the page Stripe returns the buyer to; shows the keys once",
    description: [
      "Stripe's default success and cancel URL here (STRIPE_SUCCESS_URL / STRIPE_CANCEL_URL override them). HTML for browsers, JSON with `Accept: application/json`; never cached.",
      "If our webhook has not fulfilled the session yet, the page asks Stripe for the session and, when it is paid, issues the keys exactly as the webhook would. The keys are then shown **once** (`status: keys`): the first view drops the only stored copy, sealed under a secret that lives in the server's environment, so any later view answers `already_shown` (and says where they were mailed, when mail is configured). `awaiting_payment` while Stripe has not confirmed (the HTML page reloads itself); `processing` while another worker (or the lease of one that crashed) is issuing a paid purchase's keys (it reloads too; any purchase not final is resumed here, and its keys mailed once whichever path issued them); `not_completed` for an expired, failed or refunded purchase; 404 `unknown` for a session that is not ours.",
    ].join("\n\n"),
    params: [
      {
        name: "session_id",
        in: "query",
        required: true,
        schema: Type.String({ pattern: "^cs_[A-Za-z0-9_]{1,250}$" }),
        description: "Stripe fills it in as {CHECKOUT_SESSION_ID}",
      },
    ],
    responses: {
      200: {
        description: "The purchase as the buyer may see it",
        content: { "text/html": Type.String(), "application/json": CardSuccessSchema },
      },
      400: { description: "session_id missing or not a Stripe session id" },
      404: { description: "Not a session of this service", content: { "text/html": Type.String(), "application/json": CardSuccessSchema } },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
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
