/**
 * GET /api/checkout: methods, prices, credits, options. POST /api/checkout: buy 1–5 membership
 * keys by card (303 to Stripe), agent-network token or x402 (201 with the keys), or, with no
 * payment attached to an agent_network request, a quote (200). POST /api/checkout/webhook:
 * Stripe's signed events, read as raw bytes. Logic lives in runtime/domain/payments/.
 */

import { readCredentials } from "../../domain/access/credentials.ts";
import { resolvePurchaseAccount } from "../../domain/accounts/purchase-account.ts";
import { handleCardWebhook } from "../../domain/payments/methods/card/card-fulfilment.ts";
import { PAYMENT_METHOD_REGISTRY, paymentMethod } from "../../domain/payments/methods/registry.ts";
import { CheckoutRequestSchema } from "../../domain/payments/payment-schemas.ts";
import { describeCheckout, describeCheckoutMethods } from "../../domain/payments/purchases/checkout-info.ts";
import { digestOf, resolveCheckoutOrder } from "../../domain/payments/purchases/checkout-order.ts";
import { readIdempotencyKey, scopeIdempotencyKey } from "../../domain/payments/purchases/idempotency.ts";
import { compileValidator, readJsonBody, readRawText } from "../../shared/http/body.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { requestContext } from "../../shared/http/context.ts";
import { publicBaseUrl } from "../../shared/http/public-base.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(CheckoutRequestSchema);
const WEBHOOK_MAX_BYTES = 512 * 1024;

export default defineRoutes((route, deps) => {
  route("getCheckout", async (event) => sendJson(event, 200, await describeCheckout(deps)));

  route("checkout", async (event) => {
    const ctx = requestContext(event);
    const headers = event.req.headers;
    const request = await readJsonBody(event, validator, deps.config.maxBodyBytes);
    ctx.paymentMethod = request.payment_method;
    const now = deps.clock.now();
    const rawIdempotencyKey = readIdempotencyKey(headers);
    const { key } = readCredentials(headers, ctx.url, { allowQueryKey: false });
    const order = await resolveCheckoutOrder(deps, request);
    const account = await resolvePurchaseAccount(deps.keys, { agentId: order.agentId, contact: order.contact, presentedKey: key }, now);
    if (account.proof) ctx.keyId = account.proof.id;
    const idempotencyKey =
      rawIdempotencyKey && scopeIdempotencyKey(rawIdempotencyKey, { account, agentId: order.agentId, contact: order.contact });
    // A retry is "the same request" only with the same body and the same credentials: every
    // method's, in the registry's order, whichever method the body names.
    const fingerprint = digestOf(
      JSON.stringify(request, Object.keys(request).sort()),
      ...PAYMENT_METHOD_REGISTRY.flatMap((method) => method.credentials?.(headers) ?? []),
      key ?? "",
    );
    const input = {
      headers,
      idempotencyKey,
      fingerprint,
      baseUrl: publicBaseUrl(deps),
      client: clientAddress(event, deps.config),
      paymentOptions: () => describeCheckoutMethods(deps),
    };
    const response = await paymentMethod(request.payment_method).checkout(deps, order, account, input, now);
    return sendJson(event, response.status, response.body, response.headers);
  });

  route("stripeWebhook", async (event) => {
    // Stripe's events can outgrow an API body; the signature, not the size, is the gate here.
    const raw = await readRawText(event, Math.max(deps.config.maxBodyBytes, WEBHOOK_MAX_BYTES));
    const outcome = await handleCardWebhook(deps, raw, event.req.headers.get("stripe-signature"), deps.clock.now());
    return sendJson(event, 200, { received: true, outcome });
  });
});
