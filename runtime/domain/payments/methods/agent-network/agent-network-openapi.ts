/** What agent_network adds to the OpenAPI description of checkout (see `MethodOpenApi`). */
import { CheckoutQuoteSchema } from "../../payment-schemas.ts";
import type { MethodOpenApi } from "../payment-method.ts";

export const agentNetworkOpenApi: MethodOpenApi = {
  needs: "the PAY_NETWORK_* settings",
  checkout:
    "**agent_network**: a KYAPay pay or kya-pay token in `pay-network-pay-id` (alias `skyfire-pay-id`), verified locally against the pinned JWKS (ES256, kid, issuer, audience = our seller id, iat/exp with 60 s tolerance, jti UUID, `env` present and allowed, service id `tsi`/`ssi`, USD value via `val`/`value` or `amt`/`amount`). After the reservation the amount is reserved in the token's ledger (shared with per-use retrieval, never spent past the token's value), then charged once through the network, then the keys are issued: 201 `{ keys, receipt }`. **Without a token the answer is 200, a quote**: this account's price for the quantity (graduated), the cohort, and how to pay with each available method; nothing is reserved (a quote for an existing account needs the same proof). Invalid token 402 `payment_token_invalid`; expired 402 `payment_token_expired`; kya-only 402 `payment_token_required`; not enough value 402 `payment_token_depleted`; charge refused 402 `payment_failed`. A token may pay several purchases while it has value.",
  headers: [{ name: "pay-network-pay-id", description: "KYAPay pay or kya-pay token (agent_network); without it the answer is a quote" }],
  statuses: { 200: { description: "Quote: agent_network without a token", schema: CheckoutQuoteSchema } },
};
