/**
 * Card's provider: Stripe, plus mail delivery of the keys (SMTP, else a JSON relay) when
 * configured. The buyer sees the keys once on our success page, so Stripe alone is enough.
 */
import type { PaymentsConfig } from "../../../runtime-config.ts";
import { type CardProvider, createStripeCardProvider } from "../../providers/card.ts";
import { createRelayKeyDelivery, type KeyDelivery } from "../../providers/key-delivery.ts";
import type { MethodProvider } from "../../providers/payment-providers.ts";
import { createSmtpKeyDelivery } from "../../providers/smtp-delivery.ts";

declare module "../../providers/payment-providers.ts" {
  interface PaymentProviders {
    card: { stripe: CardProvider; delivery: KeyDelivery | null; sealSecret: string } | null;
  }
}

export const cardProvider: MethodProvider = {
  field: "card",
  create(config: PaymentsConfig) {
    const stripe = config.methods.card;
    if (!stripe) return null;
    const timing = { timeoutMs: config.timeoutMs };
    return {
      stripe: createStripeCardProvider(stripe, timing),
      delivery: config.smtp
        ? createSmtpKeyDelivery(config.smtp, timing)
        : config.keyDelivery
          ? createRelayKeyDelivery(config.keyDelivery, timing)
          : null,
      // Card keys wait sealed in the store until the success page shows them; the seal's secret
      // lives only in the environment, so a copy of the store alone opens nothing.
      sealSecret: `card\u0000${stripe.webhookSecret}`,
    };
  },
};
