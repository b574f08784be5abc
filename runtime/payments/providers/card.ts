/**
 * Card payments through Stripe Checkout with the official `stripe` package: a subscription-mode
 * Checkout Session per purchase, and webhook events verified on the raw body
 * (`webhooks.constructEvent`, HMAC-SHA256, 300 s tolerance, timed by the injected clock).
 * STRIPE_API_BASE points the client at a Stripe-compatible server (tests, proxies).
 */
import Stripe from "stripe";
import { apiError } from "../../errors.ts";
import type { PaymentsConfig } from "../../config.ts";

export interface CardLineItem {
  /** Monthly price of one key, in micro-dollars (whole cents). */
  unitMicros: number;
  quantity: number;
  name: string;
}

export interface CardSessionInput {
  checkoutId: string;
  contact: string;
  lineItems: CardLineItem[];
  successUrl: string;
  cancelUrl: string;
  metadata: Record<string, string>;
}

export interface CardSession {
  id: string;
  url: string;
  expiresAt: number | null;
}

/** The part of a Stripe event the fulfilment reads. */
export interface CardEvent {
  id: string;
  type: string;
  session: { id: string; paymentStatus: string | null; clientReferenceId: string | null; metadata: Record<string, string> } | null;
}

export interface CardProvider {
  readonly name: "card";
  createSession(input: CardSessionInput, options: { idempotencyKey: string }): Promise<CardSession>;
  /** Verifies the Stripe-Signature header over the raw body; 400 `webhook_signature_invalid` otherwise. */
  parseWebhook(rawBody: string, signature: string | null, now: number): CardEvent;
}

/** Stripe's default: a signed delivery older than this is refused (replays are deduplicated anyway). */
const WEBHOOK_TOLERANCE_S = 300;

export function createStripeCardProvider(config: NonNullable<PaymentsConfig["stripe"]>, options: { timeoutMs: number }): CardProvider {
  const base = config.apiBase;
  const stripe = new Stripe(config.secretKey, {
    timeout: options.timeoutMs,
    maxNetworkRetries: 1,
    telemetry: false,
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === "https:" ? 443 : 80), protocol: base.protocol === "https:" ? "https" : "http" } : {}),
  });

  return {
    name: "card",
    async createSession(input, { idempotencyKey }) {
      let session: Stripe.Checkout.Session;
      try {
        session = await stripe.checkout.sessions.create(
          {
            mode: "subscription",
            line_items: input.lineItems.map((item) => ({
              quantity: item.quantity,
              price_data: { currency: "usd", unit_amount: Math.round(item.unitMicros / 10_000), recurring: { interval: "month" }, product_data: { name: item.name } },
            })),
            customer_email: input.contact,
            client_reference_id: input.checkoutId,
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
            metadata: input.metadata,
            subscription_data: { metadata: input.metadata },
          },
          { idempotencyKey },
        );
      } catch (error) {
        throw apiError("payment_gateway_error", { detail: `Stripe did not create the checkout session (${(error as { type?: string }).type ?? "network error"}); nothing was charged.` });
      }
      if (!session.url) throw apiError("payment_gateway_error", { detail: "Stripe returned a session without a URL." });
      return { id: session.id, url: session.url, expiresAt: session.expires_at ? session.expires_at * 1000 : null };
    },
    parseWebhook(rawBody, signature, now) {
      if (!signature) throw apiError("webhook_signature_invalid", { detail: "The Stripe-Signature header is missing." });
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, config.webhookSecret, WEBHOOK_TOLERANCE_S, undefined, now);
      } catch {
        throw apiError("webhook_signature_invalid", { detail: "The Stripe-Signature header does not match the body, or is too old." });
      }
      const object = (event.data?.object ?? {}) as Partial<Stripe.Checkout.Session>;
      const session =
        object.object === "checkout.session" && typeof object.id === "string"
          ? { id: object.id, paymentStatus: object.payment_status ?? null, clientReferenceId: object.client_reference_id ?? null, metadata: (object.metadata ?? {}) as Record<string, string> }
          : null;
      return { id: event.id, type: event.type, session };
    },
  };
}
