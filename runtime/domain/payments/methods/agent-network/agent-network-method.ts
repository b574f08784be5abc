/**
 * KYAPay tokens from an agent payment network, as a registered payment method. Its folder holds
 * the checkout (`checkout-agent-network.ts`); the network client is
 * `../../providers/agent-network.ts`, and the token ledger it shares with per-use retrieval is
 * `../../per-use/token-ledger.ts`.
 */

import { successStatusOf } from "../method-ids.ts";
import type { PaymentMethod } from "../payment-method.ts";
import { agentNetworkOpenApi } from "./agent-network-openapi.ts";
import { agentNetworkPerUse } from "./agent-network-per-use.ts";
import { agentNetworkProvider } from "./agent-network-provider.ts";
import { checkoutWithAgentNetwork, readPayToken } from "./checkout-agent-network.ts";

export const agentNetworkMethod: PaymentMethod = {
  id: "agent_network",
  provider: agentNetworkProvider,
  openapi: agentNetworkOpenApi,
  perUse: agentNetworkPerUse,
  available: (deps) => deps.payments.agentNetwork !== null,
  credentials: (headers) => [readPayToken(headers) ?? ""],
  describe: (deps) => ({
    id: "agent_network",
    available: deps.payments.agentNetwork !== null,
    description:
      "A KYAPay pay or kya-pay token (ES256 JWT) in the pay-network-pay-id header, worth at least the quoted amount; it is charged before the keys are issued. 201 with the keys.",
    success_status: successStatusOf("agent_network"),
    header: "pay-network-pay-id",
  }),
  checkout: (deps, order, account, input, now) =>
    checkoutWithAgentNetwork(
      deps,
      order,
      account,
      {
        payToken: readPayToken(input.headers),
        idempotencyKey: input.idempotencyKey,
        fingerprint: input.fingerprint,
        paymentOptions: input.paymentOptions,
      },
      now,
    ),
};
