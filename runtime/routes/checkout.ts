/**
 * GET /api/checkout: methods, prices, credits, options. POST /api/checkout: buy 1–5 membership
 * keys by card (303 to Stripe), agent-network token or x402 (201 with the keys). POST
 * /api/checkout/webhook: Stripe's signed events, read as raw bytes. Logic lives in runtime/payments/.
 */
import { definePlugin } from "h3";
import type { AppDeps } from "../deps.ts";
import { compileValidator, readJsonBody, readRawText } from "../http/body.ts";
import { requestContext } from "../http/context.ts";
import { sendJson } from "../http/respond.ts";
import { checkoutWithAgentNetwork } from "../payments/checkout-agent-network.ts";
import { checkoutWithCard } from "../payments/checkout-card.ts";
import { describeCheckout } from "../payments/checkout-info.ts";
import { checkoutWithX402, resumeX402 } from "../payments/checkout-http402.ts";
import { digestOf, resolveCheckoutOrder } from "../payments/checkout-order.ts";
import { handleCardWebhook } from "../payments/card-fulfilment.ts";
import { withIdempotency } from "../payments/idempotency.ts";
import { CheckoutRequestSchema } from "../schema/payments.ts";

const validator = compileValidator(CheckoutRequestSchema);
const WEBHOOK_MAX_BYTES = 512 * 1024;

export default definePlugin<AppDeps>((app, deps) => {
  app.get("/api/checkout", async (event) => sendJson(event, 200, await describeCheckout(deps)));

  app.post("/api/checkout", async (event) => {
    const ctx = requestContext(event);
    const headers = event.req.headers;
    const request = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    ctx.paymentMethod = request.payment_method;
    const now = deps.clock.now();
    // `skyfire-pay-id` is the network's own name for the header: an alias, easy to drop.
    const payToken = headers.get("pay-network-pay-id") ?? headers.get("skyfire-pay-id");
    const idempotencyKey = headers.get("idempotency-key");
    const base = deps.config.publicBaseUrl ?? ctx.url.origin;
    const credential = [payToken ?? "", headers.get("x-payment") ?? "", headers.get("payment-signature") ?? ""];
    const fingerprint = digestOf(JSON.stringify(request, Object.keys(request).sort()), ...credential);
    const response = await withIdempotency(deps, idempotencyKey, { fingerprint, credential: credential.join("\u0000") }, now, async () => {
      if (request.payment_method === "http402") {
        const resumed = await resumeX402(deps, headers, now);
        if (resumed) return resumed;
      }
      const order = await resolveCheckoutOrder(deps, request);
      if (request.payment_method === "card") return checkoutWithCard(deps, order, { idempotencyKey, baseUrl: base }, now);
      if (request.payment_method === "agent_network") return checkoutWithAgentNetwork(deps, order, payToken, now);
      return checkoutWithX402(deps, order, { headers, resourceUrl: `${base}/api/checkout` }, now);
    });
    return sendJson(event, response.status, response.body, response.headers);
  });

  app.post("/api/checkout/webhook", async (event) => {
    // Stripe's events can outgrow an API body; the signature, not the size, is the gate here.
    const raw = await readRawText(event, Math.max(deps.config.maxBodyBytes, WEBHOOK_MAX_BYTES));
    const outcome = await handleCardWebhook(deps, raw, event.req.headers.get("stripe-signature"), deps.clock.now());
    return sendJson(event, 200, { received: true, outcome });
  });
});
