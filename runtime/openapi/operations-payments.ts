/**
 * OpenAPI operations of checkout: GET/POST /api/checkout and the Stripe webhook. Every decision
 * the spec leaves open is written into `description`.
 */
import { Type } from "@sinclair/typebox";
import type { Operation } from "./operations.ts";
import { CheckoutInfoSchema, CheckoutKeysSchema, CheckoutRequestSchema, CheckoutSessionSchema, WebhookAckSchema } from "../schema/payments.ts";

export const PAYMENT_OPERATIONS: Operation[] = [
  {
    method: "get",
    path: "/api/checkout",
    operationId: "getCheckout",
    summary: "Checkout info: payment methods, per-cohort pricing, subscription options",
    description: [
      "`payment_methods[].available` is false for a method this deployment has not configured (card needs STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and KEY_DELIVERY_URL; agent_network the PAY_NETWORK_* settings; http402 the X402_* settings); POST with it answers 503 `payment_provider_unavailable`.",
      "Prices are integer micro-dollars (`*_usd_micros`) with a display string. The inaugural cohort prices keys 1–5 of one account at $19/$17/$15/$13/$11.",
    ].join("\n\n"),
    responses: { 200: { description: "Checkout info", schema: CheckoutInfoSchema } },
  },
  {
    method: "post",
    path: "/api/checkout",
    operationId: "checkout",
    summary: "Subscribe: buy 1–5 membership keys",
    description: [
      "The price is computed here, never taken from the client: the active cohort's price per key, graduated in the inaugural cohort by the keys the account already holds (keys 1–5: $19, $17, $15, $13, $11; e.g. an account holding 1 key that buys 2 pays $17 + $15). The account is `agent_id`, else `contact`; without either the keys belong to no account and are priced from key 1. An account holds at most 5 membership keys: a purchase that would pass 5 is 409 `conflict` before any payment. `vertical` must be a paid vertical or ai-compliance (fully open verticals are 400 `vertical_not_allowed`). Referral and loyalty credits are applied at the next renewal, not to a purchase; `quote.credit_balance_usd_micros` shows the balance.",
      "**card** (`contact` required, else 400): creates a Stripe Checkout Session (mode subscription, one monthly line item per key price, customer_email = contact, client_reference_id = our checkout id) and answers **303** with `Location` = the session URL; the body carries the same `url`, `session_id` and `expires_at`, because agents often do not follow redirects on POST. Keys are issued only when Stripe's signed `checkout.session.completed` (paid) or `checkout.session.async_payment_succeeded` event reaches POST /api/checkout/webhook, and are delivered to `contact` through the key-delivery relay; the store keeps hashes only.",
      "**agent_network**: a KYAPay pay or kya-pay token in `pay-network-pay-id` (alias `skyfire-pay-id`). Verified locally against the pinned JWKS (ES256, kid, issuer, audience = our seller id, iat/exp with 60 s tolerance, jti UUID, env, service id `tsi`/`ssi`, USD value via `val`/`value` or `amt`/`amount`); the amount is reserved in the token's ledger (shared with per-use retrieval) and charged through the network BEFORE the keys are issued. 201 `{ keys, receipt }`, keys as POST /api/keys shows them. Missing token 402 `checkout_payment_required`; invalid 402 `payment_token_invalid`; expired 402 `payment_token_expired`; kya-only 402 `payment_token_required`; not enough value left 402 `payment_token_depleted`; charge refused 402 `payment_failed`; network unreachable 502 `payment_gateway_error`. Nothing is issued on any failure. A token may pay several checkouts while it has value (the network allows repeated charges); send an Idempotency-Key to make a retry safe.",
      "**http402** (x402): without payment, 402 `checkout_payment_required` whose body carries x402 v1 (`x402Version: 1`, `error`, `accepts[]` with `maxAmountRequired` in atomic units of the configured 6-decimal USD stablecoin, i.e. micro-dollars) and whose `PAYMENT-REQUIRED` header carries the v2 PaymentRequired (base64 JSON). Pay and resend with `X-PAYMENT` (v1) or `PAYMENT-SIGNATURE` (v2): malformed (not base64 JSON, over 8 KB, wrong shape) 400 `payment_malformed`; a payment that does not match OUR requirements (scheme, network, amount, asset, payTo, authorization.to/value, validBefore) 402 with fresh requirements. The facilitator is then asked to verify and settle with our requirements, never the client's copy; keys are issued only after a successful settle: 201 with `X-PAYMENT-RESPONSE` (v1) or `PAYMENT-RESPONSE` (v2). Settle refused: 402 with the response header showing `success: false`. Each signed authorization (network, payer, nonce) is used once: the same payment sent again returns the same 201 and the same keys, while it is being processed 409 `payment_in_progress`. If the request that took a payment died before answering, the same payment sent again after the claim's lease (2 minutes, longer with a longer facilitator timeout) finishes it: a settled payment gets its keys, once; one whose settle outcome was lost and that the facilitator now refuses is 409 `payment_unconfirmed` (it may have been paid; logged for reconciliation by hand).",
      "**Idempotency-Key** (1–255 printable characters): the first request's successful answer (201 or 303) is saved for 24 h and returned to a retry with the same key and the same request (header `Idempotent-Replayed: true`); the same key with a different body or payment header is 422 `idempotency_key_reused`; while the first is running 409 `idempotency_in_progress`. Errors are not saved: a failed attempt may be retried under the same key.",
    ].join("\n\n"),
    security: ["none", "payToken"],
    params: [
      { name: "pay-network-pay-id", in: "header", schema: Type.String(), description: "KYAPay pay or kya-pay token (agent_network)" },
      { name: "X-PAYMENT", in: "header", schema: Type.String(), description: "x402 v1 payment payload, base64 JSON (http402)" },
      { name: "PAYMENT-SIGNATURE", in: "header", schema: Type.String(), description: "x402 v2 payment payload, base64 JSON (http402)" },
      { name: "Idempotency-Key", in: "header", schema: Type.String({ minLength: 1, maxLength: 255 }), description: "Makes a retried request return the first answer" },
    ],
    body: CheckoutRequestSchema,
    responses: {
      201: { description: "Keys issued (agent_network, http402)", schema: CheckoutKeysSchema, headers: ["X-PAYMENT-RESPONSE", "PAYMENT-RESPONSE"] },
      303: { description: "Card: continue at the Stripe Checkout page", schema: CheckoutSessionSchema, headers: ["Location"] },
      400: { description: "Invalid body (quantity outside 1–5, card without contact, unknown method or vertical) or malformed x402 payment" },
      402: { description: "Payment required, failed, invalid or insufficient; nothing issued", headers: ["PAYMENT-REQUIRED", "X-PAYMENT-RESPONSE", "PAYMENT-RESPONSE"] },
      409: { description: "The account would hold more than 5 keys, the same payment / Idempotency-Key is being processed, or an interrupted x402 payment cannot be confirmed" },
      422: { description: "Idempotency-Key reused with a different request" },
      502: { description: "A payment provider did not answer; nothing issued" },
      503: { description: "This payment method is not configured here" },
    },
  },
  {
    method: "post",
    path: "/api/checkout/webhook",
    operationId: "stripeWebhook",
    summary: "Stripe webhook (card checkout fulfilment)",
    description: [
      "Called by Stripe, not by agents (the spec names no webhook route; this is ours). The `Stripe-Signature` header is verified over the raw body bytes with STRIPE_WEBHOOK_SECRET (HMAC-SHA256, 300 s tolerance); a missing or wrong signature, an altered body or a stale timestamp is 400 `webhook_signature_invalid` and changes nothing.",
      "Keys are issued once per Checkout Session, on `checkout.session.completed` with payment_status paid / no_payment_required, or on `checkout.session.async_payment_succeeded`, whichever arrives first; `completed` with unpaid waits (`awaiting_payment`). Replays, duplicates, retries and other event ids for the same session answer 200 `duplicate`. `async_payment_failed` marks the order failed. Unknown event types answer 200 `ignored`. A paid session whose account reached 5 keys in the meantime answers 200 `account_cap_reached` (logged for a manual refund). A store failure answers 500, so Stripe retries. Without card payments configured the route answers 404 `not_found`.",
    ].join("\n\n"),
    params: [{ name: "Stripe-Signature", in: "header", required: true, schema: Type.String() }],
    responses: { 200: { description: "Event received", schema: WebhookAckSchema }, 400: { description: "Signature invalid" }, 404: { description: "Card payments are not configured on this deployment" } },
  },
];
