/**
 * The payment providers of a deployment, built once from config and injected into `createApp`.
 * A provider whose configuration is missing is null: its method is listed unavailable and
 * requests for it answer 503 `payment_provider_unavailable`.
 */
import type { PaymentsConfig } from "../../config.ts";
import { createAgentNetworkProvider, type AgentNetworkProvider } from "./agent-network.ts";
import { createStripeCardProvider, type CardProvider } from "./card.ts";
import { createX402Facilitator, type X402Facilitator } from "./http402.ts";
import { createRelayKeyDelivery, type KeyDelivery } from "./key-delivery.ts";

export interface PaymentProviders {
  /** Card needs Stripe and a way to deliver the keys (they are issued after the buyer left). */
  card: { stripe: CardProvider; delivery: KeyDelivery } | null;
  agentNetwork: AgentNetworkProvider | null;
  x402: { facilitator: X402Facilitator; payTo: string; network: string; asset: string } | null;
}

export function createPaymentProviders(config: PaymentsConfig): PaymentProviders {
  const timing = { timeoutMs: config.timeoutMs };
  return {
    card: config.stripe && config.keyDelivery ? { stripe: createStripeCardProvider(config.stripe, timing), delivery: createRelayKeyDelivery(config.keyDelivery, timing) } : null,
    agentNetwork: config.agentNetwork ? createAgentNetworkProvider(config.agentNetwork, timing) : null,
    x402: config.x402 ? { facilitator: createX402Facilitator(config.x402, timing), payTo: config.x402.payTo, network: config.x402.network, asset: config.x402.asset } : null,
  };
}
