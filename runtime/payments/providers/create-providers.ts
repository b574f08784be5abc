/**
 * The providers room (`payments/providers/`): clients of the outside services the payment methods
 * call (Stripe, the agent payment network, the x402 facilitator) and of key delivery by mail,
 * behind interfaces so tests inject stand-ins that speak the real wire protocol.
 *
 * The payment providers of a deployment, built once from config and injected into `createApp`.
 * A provider whose configuration is missing is null: its method is listed unavailable and
 * requests for it answer 503 `payment_provider_unavailable`.
 */
import type { PaymentsConfig } from "../../config.ts";
import { createAgentNetworkProvider, type AgentNetworkProvider } from "./agent-network.ts";
import { createStripeCardProvider, type CardProvider } from "./card.ts";
import { createX402Provider, type X402Provider } from "./http402.ts";
import { createRelayKeyDelivery, type KeyDelivery } from "./key-delivery.ts";
import { createSmtpKeyDelivery } from "./smtp-delivery.ts";

export interface PaymentProviders {
  /**
   * Card needs Stripe only: the buyer sees the keys once on our success page. Mail delivery (SMTP,
   * else a JSON relay) is an addition when configured.
   */
  card: { stripe: CardProvider; delivery: KeyDelivery | null; sealSecret: string } | null;
  agentNetwork: AgentNetworkProvider | null;
  x402: X402Provider | null;
}

export function createPaymentProviders(config: PaymentsConfig): PaymentProviders {
  const timing = { timeoutMs: config.timeoutMs };
  return {
    card: config.stripe
      ? {
          stripe: createStripeCardProvider(config.stripe, timing),
          delivery: config.smtp
            ? createSmtpKeyDelivery(config.smtp, timing)
            : config.keyDelivery
              ? createRelayKeyDelivery(config.keyDelivery, timing)
              : null,
          // Card keys wait sealed in the store until the success page shows them; the seal's secret
          // lives only in the environment, so a copy of the store alone opens nothing.
          sealSecret: `card\u0000${config.stripe.webhookSecret}`,
        }
      : null,
    agentNetwork: config.agentNetwork ? createAgentNetworkProvider(config.agentNetwork, timing) : null,
    x402: config.x402 ? createX402Provider(config.x402, timing) : null,
  };
}
