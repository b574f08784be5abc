/** What card adds to the OpenAPI description of checkout (see `MethodOpenApi`). */
import { CheckoutSessionSchema } from "../../payment-schemas.ts";
import type { MethodOpenApi } from "../payment-method.ts";

export const cardOpenApi: MethodOpenApi = {
  needs: "STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET",
  checkout:
    "**card** (`contact` required, else 400): reserves, then creates a Stripe Checkout Session (mode subscription, one monthly line item per key price, customer_email = contact, client_reference_id = the purchase id, expiring after 1 hour) and answers **303** with `Location` = the session URL; the body carries the same `url`, `session_id`, `purchase_id` and `expires_at`, because agents often do not follow redirects on POST. Keys are issued when Stripe's signed webhook reports the session paid, or when the success page (`GET /checkout/success?session_id=…`, Stripe's default return URL here) confirms the payment with Stripe itself; that page shows them once. With SMTP_URL (or KEY_DELIVERY_URL) they are also mailed to `contact`. An expired or failed session gives the slots back.",
  statuses: {
    303: { description: "Card: continue at the Stripe Checkout page", schema: CheckoutSessionSchema, headers: ["Location"] },
    429: { description: "`rate_limited`: this client address already holds CARD_PENDING_PER_CLIENT unpaid card checkouts" },
  },
};
