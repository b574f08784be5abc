/**
 * GET /api/checkout: methods, prices, credits, options. POST /api/checkout: buy 1–5 membership
 * keys by card (303 to Stripe), agent-network token or x402 (201 with the keys), or, with no
 * payment attached to an agent_network request, a quote (200). POST /api/checkout/webhook:
 * Stripe's signed events, read as raw bytes. Logic lives in runtime/domain/payments/.
 */

import { Type } from "@sinclair/typebox";
import { readCredentials } from "../../domain/access/credentials.ts";
import { resolvePurchaseAccount } from "../../domain/accounts/purchase-account.ts";
import { handleCardWebhook } from "../../domain/payments/methods/card/card-fulfilment.ts";
import { methodsSucceedingWith, PAYMENT_METHOD_IDS, PAYMENT_METHOD_TRAITS } from "../../domain/payments/methods/method-ids.ts";
import { PAYMENT_METHOD_REGISTRY, paymentMethod } from "../../domain/payments/methods/registry.ts";
import { CheckoutInfoSchema, CheckoutKeysSchema, CheckoutRequestSchema, WebhookAckSchema } from "../../domain/payments/payment-schemas.ts";
import { describeCheckout, describeCheckoutMethods } from "../../domain/payments/purchases/checkout-info.ts";
import { digestOf, resolveCheckoutOrder } from "../../domain/payments/purchases/checkout-order.ts";
import { readIdempotencyKey, scopeIdempotencyKey } from "../../domain/payments/purchases/idempotency.ts";
import { compileValidator, readJsonBody, readRawText } from "../../shared/http/body.ts";
import { clientAddress } from "../../shared/http/client-address.ts";
import { requestContext } from "../../shared/http/context.ts";
import { publicBaseUrl } from "../../shared/http/public-base.ts";
import { sendJson } from "../../shared/http/respond.ts";
import { methodStatuses, responseHeadersOf } from "../openapi/fragments.ts";
import type { OperationParam, RouteDeclaration } from "./route-declaration.ts";
import { defineRoutes } from "./route-table.ts";

const validator = compileValidator(CheckoutRequestSchema);
const WEBHOOK_MAX_BYTES = 512 * 1024;

const DECLARATIONS: RouteDeclaration[] = [
  {
    method: "get",
    path: "/api/checkout",
    operationId: "getCheckout",
    metrics: "request",
    security: ["none"],
    summary: "Checkout info: payment methods, per-cohort pricing, subscription options",
    description: [
      `\`payment_methods[].available\` is false for a method this deployment has not configured (${PAYMENT_METHOD_REGISTRY.map((m) => `${m.id} needs ${m.openapi.needs}`).join("; ")}); POST with it answers 503 \`payment_provider_unavailable\`.`,
      "Prices are integer micro-dollars (`*_usd_micros`) with a display string. The inaugural cohort prices keys 1–5 of one account at $19/$17/$15/$13/$11.",
    ].join("\n\n"),
    responses: { 200: { description: "Checkout info", schema: CheckoutInfoSchema } },
  },
  {
    method: "post",
    path: "/api/checkout",
    operationId: "checkout",
    metrics: "request",
    summary: "Subscribe: buy 1–5 membership keys (or get a quote)",
    description: [
      "**Accounts are owned.** The first purchase creates an account, named by `agent_id`, else `contact`, else a generated `acct_…` id (returned as `receipt.account`). A later purchase for an existing account, which takes its graduated price tier, one of its 5 key slots and at 5 keys moves all its keys to the pooled volume plan, must send a live membership key of that account in `X-Service-Key` (or `Authorization: Bearer svc_live_…`); the key alone names the account, so `agent_id` may then be left out. Without that proof, a purchase naming an existing account (in any letter case) is refused **403 `account_proof_required` before any payment**; so is one whose key is a trial key or another account's key (a malformed, unknown, revoked or expired key is 401 as everywhere). Two first purchases racing for one new name: one creates the account, the other is refused uncharged.",
      "**Reserve → charge → issue.** Every purchase is one durable record moving through `reserved` → `charging` → `charged` → `issued` (or `charging` → `unconfirmed` while an operator confirms a charge whose outcome was lost), or to `released` (refused or abandoned; nothing charged) or `refund_due` (charged, but no client can come back for the keys); each state is written before the outside call that follows it. The account's slots, and with them the graduated price of each key, are reserved atomically before payment (an account at 5 keys is 409 `conflict`, uncharged), the keys to be issued are generated at reservation, the provider is called once, then the keys are written and the account's cohort seat claimed. So concurrent purchases never charge a buyer who gets no key, and prices stay exact: an account holding 1 key that sends 8 single-key purchases at once gets exactly 4 keys at $17 + $15 + $13 + $11 and 4 × 409 uncharged. A refused or failed payment gives the slots back. The price (`quote`) is computed here from the reserved slots, never taken from the client. **Cohorts:** a member (an account holding a membership) is quoted and charged its own cohort's price (graduated in the inaugural cohort: its second key $17 even after `core` opened) and gets keys of its cohort; a new account joins the cohort open to new members, taking one of its seats at reservation (given back if the purchase is released). While that cohort is full and the next tier closed, a new account is refused **409 `cohort_full` before any payment** (a quote too).",
      "**Crashes and retries.** With an `Idempotency-Key` (1–255 printable characters) a retry of the same request (same body and credentials) finishes an interrupted purchase or returns its 201 again (`Idempotent-Replayed: true`), never charging twice; while another request works on it, 409 `idempotency_in_progress` with `Retry-After` (a crashed worker's lease runs out after 3 × PAYMENT_TIMEOUT_MS + 1 s). The same key with another request is 422 `idempotency_key_reused`; a purchase that ended refused frees its key for a corrected retry. An agent_network charge whose outcome cannot be confirmed (a timeout, a lost answer or a 5xx from the network, whose charge call takes no idempotency key; or a crash right after the call) is **never assumed paid**: the purchase waits `unconfirmed` with no key and is listed for the operator (`vkr payments list`, `GET /api/admin/payments`). The request that met it answers 502 `payment_gateway_error`; a retry meanwhile answers 409 `payment_unconfirmed` (do not pay again; retry later with the same Idempotency-Key). Once the operator has checked with the network (`vkr payments ack <id> --outcome paid|not_paid`, `POST /api/admin/payments/acknowledge`): paid → the retry gets the keys (once, nothing charged again); not paid → released, the retry is 402 `payment_failed` and the token's value is spendable again. A charge the network refused is recorded before anything else, so a retry after a store error releases it (no key, no charge). Without an Idempotency-Key no retry can find an interrupted purchase: reconciliation releases it if nothing was charged and marks it `refund_due` otherwise.",
      ...PAYMENT_METHOD_REGISTRY.map((m) => m.openapi.checkout),
      "Referral and loyalty credits are not deducted from a purchase; `quote.credit_balance_usd_micros` shows the balance, applied to the next card renewal invoice.",
    ].join("\n\n"),
    security: ["none", "payToken", "serviceKey"],
    params: [
      ...PAYMENT_METHOD_REGISTRY.flatMap((m) =>
        (m.openapi.headers ?? []).map(
          (h): OperationParam => ({ name: h.name, in: "header", schema: Type.String(), description: h.description }),
        ),
      ),
      {
        name: "X-Service-Key",
        in: "header",
        schema: Type.String(),
        description: "A live membership key of the account: proof needed to buy for an existing account",
      },
      {
        name: "Idempotency-Key",
        in: "header",
        schema: Type.String({ minLength: 1, maxLength: 255 }),
        description: "Makes a retried request finish or repeat the first purchase",
      },
    ],
    body: CheckoutRequestSchema,
    responses: {
      ...methodStatuses(),
      201: {
        description: `Keys issued (${methodsSucceedingWith("keys").join(", ")})`,
        schema: CheckoutKeysSchema,
        ...responseHeadersOf(201),
      },
      400: {
        description: `Invalid body (quantity outside 1–5, ${PAYMENT_METHOD_IDS.filter((id) => PAYMENT_METHOD_TRAITS[id].contactRequired)
          .map((id) => `${id} without contact, `)
          .join(
            "",
          )}unknown method or vertical, an agent_id or contact with control or invisible format characters)${PAYMENT_METHOD_REGISTRY.flatMap((m) => (m.openapi.badRequest ? [` or ${m.openapi.badRequest}`] : [])).join("")}`,
      },
      401: { description: "The key in X-Service-Key is malformed, unknown, revoked or expired" },
      402: { description: "Payment required, failed, invalid or insufficient; nothing issued", ...responseHeadersOf(402) },
      403: { description: "`account_proof_required`: the account exists and no live membership key of it was sent; nothing charged" },
      409: {
        description:
          "The account would hold more than 5 keys (`conflict`, uncharged); a new member while every seat of the active cohort is held and the next tier is closed (`cohort_full`, uncharged, with `cohort`, `member_cap`, `seats_claimed` and `waitlist: /api/waitlist`); the same purchase is being processed; `payment_unconfirmed`: the purchase's charge could not be confirmed and waits for an operator (no key yet; send the same request with the same Idempotency-Key again later), or it is recorded for a refund",
      },
      422: {
        description:
          "Idempotency-Key reused with a different request (keys are scoped to the caller: the account proven by X-Service-Key, else agent_id, else contact)",
      },
      502: { description: "A payment provider did not answer; retry with the same Idempotency-Key (never charged twice)" },
      503: { description: "This payment method is not configured here" },
    },
  },
  {
    method: "post",
    path: "/api/checkout/webhook",
    operationId: "stripeWebhook",
    metrics: "request",
    security: ["none"],
    summary: "Stripe webhook (card fulfilment, renewal credits)",
    description: [
      "Called by Stripe, not by agents (the spec names no webhook route; this is ours). The `Stripe-Signature` header is verified over the raw body bytes with STRIPE_WEBHOOK_SECRET (HMAC-SHA256, 300 s tolerance); a missing or wrong signature, an altered body or a stale timestamp is 400 `webhook_signature_invalid` and changes nothing.",
      "Keys are issued once per Checkout Session, on `checkout.session.completed` with payment_status paid / no_payment_required, or on `checkout.session.async_payment_succeeded`, whichever arrives first; `completed` with unpaid waits (`awaiting_payment`). Replays, duplicates, retries and other event ids for the same session answer 200 `duplicate`. `async_payment_failed` and `checkout.session.expired` give the reservation back (`payment_failed`). A payment that lands after its reservation was given back gets its keys if the account still has room, else `refund_due` (listed for the operator).",
      "`invoice.created` for a renewal (billing_reason `subscription_cycle`, a draft): the account's referral and loyalty credit, up to the amount due, is added to that invoice as a negative line item, exactly once per invoice (`credit_applied`, else `no_credit`); the credit and where it went show in GET /api/keys.",
      "Unknown event types answer 200 `ignored`. A store failure, or the purchase being worked on at that moment, answers non-2xx so Stripe delivers again. Without card payments configured the route answers 404 `not_found`.",
    ].join("\n\n"),
    params: [{ name: "Stripe-Signature", in: "header", required: true, schema: Type.String() }],
    responses: {
      200: { description: "Event received", schema: WebhookAckSchema },
      400: { description: "Signature invalid" },
      404: { description: "Card payments are not configured on this deployment" },
      409: { description: "The purchase is being processed right now; Stripe retries" },
    },
  },
];

export default defineRoutes(DECLARATIONS, (route, deps) => {
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
