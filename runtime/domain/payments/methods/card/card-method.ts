/**
 * Card through Stripe Checkout, as a registered payment method. Its folder holds the whole card
 * journey: the checkout that opens a Stripe session (`checkout-card.ts`), the bound on unpaid
 * sessions per client (`card-pending.ts`), the webhook that charges and issues
 * (`card-fulfilment.ts`, with renewal credits in `card-credits.ts`), the success page where the
 * buyer sees the keys once (`card-success.ts`, `render-card-success.ts`), and what reconciliation
 * does with a purchase still awaiting its payment (`card-reconcile.ts`).
 */

import { successStatusOf } from "../method-ids.ts";
import type { PaymentMethod } from "../payment-method.ts";
import { cardOpenApi } from "./card-openapi.ts";
import { cardProvider } from "./card-provider.ts";
import { cardAwaitingPayment } from "./card-reconcile.ts";
import { checkoutWithCard } from "./checkout-card.ts";

export const cardMethod: PaymentMethod = {
  id: "card",
  provider: cardProvider,
  openapi: cardOpenApi,
  available: (deps) => deps.payments.card !== null,
  describe: (deps) => ({
    id: "card",
    available: deps.payments.card !== null,
    description:
      "Card via Stripe Checkout, billed monthly. POST answers 303 to the Stripe-hosted page (the body carries the same url); keys are issued when Stripe confirms the payment and are emailed to `contact` (required).",
    success_status: successStatusOf("card"),
  }),
  checkout: (deps, order, account, input, now) =>
    checkoutWithCard(
      deps,
      order,
      account,
      { idempotencyKey: input.idempotencyKey, fingerprint: input.fingerprint, baseUrl: input.baseUrl, client: input.client },
      now,
    ),
  warnings: (deps) =>
    deps.payments.card && !deps.config.publicBaseUrl
      ? [
          "PUBLIC_BASE_URL is not set: Stripe's success URL uses the listening address; set it when clients reach this server through another name",
        ]
      : [],
  awaiting: cardAwaitingPayment,
};
