/** What x402 adds to the OpenAPI description of checkout (see `MethodOpenApi`). */
import type { MethodOpenApi } from "../payment-method.ts";

export const x402OpenApi: MethodOpenApi = {
  needs: "the X402_* settings",
  checkout:
    "**http402** (x402): without payment, 402 `checkout_payment_required` whose body carries x402 v1 (`x402Version: 1`, `error`, `accepts[]` with `maxAmountRequired` in atomic units of the network's USD stablecoin, with its EIP-712 domain in `extra`) and whose `PAYMENT-REQUIRED` header carries the v2 PaymentRequired (base64 JSON); `resource` is PUBLIC_BASE_URL (else the listening address), never the request's Host. Pay and resend with `X-PAYMENT` (v1) or `PAYMENT-SIGNATURE` (v2). The signed payment is the purchase's own idempotency key: malformed 402 `payment_malformed`; a payment that does not match OUR requirements for the price just reserved (scheme, network, the echoed v2 requirement, authorization.to, and an authorization value EQUAL to the price) 402 with fresh requirements before any facilitator call, the reservation released; then verify and settle with the facilitator (our requirements, never the client's copy), keys only after a successful settle: 201 with `X-PAYMENT-RESPONSE` (v1) or `PAYMENT-RESPONSE` (v2). Settle refused: 402 with the response header showing `success: false`. A settle that hangs, fails (5xx) or answers what the facilitator protocol does not: 502 `payment_gateway_error` and no keys; the same payment sent again (or reconciliation) asks settle again, and keys come only once a settle succeeds (an authorization that expires unsettled ends released, no keys). The payment's identity is the EIP-3009 authorization (chain id, token, payer, nonce), whether sent as v1 or v2: one authorization is one purchase, settled once. The same payment sent again for the same account (its `agent_id`, or one of its keys) returns the same 201 and keys (409 `payment_in_progress` while it is being processed), across crashes too; sent for another account (another or no `agent_id`) it is 409 `payment_owned_by_another_account`, the keys going only to the account that paid; another signature over the same authorization is 402 `invalid_exact_evm_payload_authorization_nonce_used`.",
  headers: [
    { name: "X-PAYMENT", description: "x402 v1 payment payload, base64 JSON (http402)" },
    { name: "PAYMENT-SIGNATURE", description: "x402 v2 payment payload, base64 JSON (http402)" },
  ],
  responseHeaders: { 201: ["X-PAYMENT-RESPONSE", "PAYMENT-RESPONSE"], 402: ["PAYMENT-REQUIRED", "X-PAYMENT-RESPONSE", "PAYMENT-RESPONSE"] },
  badRequest: "malformed x402 payment",
};
