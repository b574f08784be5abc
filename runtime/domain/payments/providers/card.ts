/**
 * Card payments through Stripe Checkout with the official `stripe` package: a subscription-mode
 * Checkout Session per purchase, and webhook events verified on the raw body
 * (`webhooks.constructEvent`, HMAC-SHA256, 300 s tolerance, timed by the injected clock).
 * STRIPE_API_BASE points the client at a Stripe-compatible server (tests, proxies).
 */
import Stripe from "stripe";
import { apiError } from "../../../shared/errors.ts";
import type { CardConfig } from "../methods/card/card-env.ts";

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
  /** Epoch ms after which Stripe no longer accepts payment (30 minutes to 24 hours ahead). */
  expiresAt: number;
}

export interface CardSession {
  id: string;
  url: string;
  expiresAt: number | null;
}

/** A Checkout Session as the fulfilment reads it. */
export interface CardSessionState {
  id: string;
  /** open, complete or expired. */
  status: string | null;
  paymentStatus: string | null;
  clientReferenceId: string | null;
  metadata: Record<string, string>;
  /** The subscription (or payment intent) it paid for: the purchase's payment reference. */
  reference: string | null;
}

/** A subscription invoice as credit application reads it. */
export interface CardInvoice {
  id: string;
  customer: string | null;
  status: string | null;
  billingReason: string | null;
  amountDueMicros: number;
  /** The subscription's metadata (ours: purchase_id, account). */
  metadata: Record<string, string>;
}

/** The part of a Stripe event the fulfilment reads. */
export interface CardEvent {
  id: string;
  type: string;
  session: CardSessionState | null;
  invoice: CardInvoice | null;
}

export interface CardProvider {
  readonly name: "card";
  createSession(input: CardSessionInput, options: { idempotencyKey: string }): Promise<CardSession>;
  /** The session as Stripe has it now (the success page confirms payment with it). */
  retrieveSession(id: string): Promise<CardSessionState>;
  /** Adds a negative line (a credit) to a draft invoice; the idempotency key makes a retry add it once. */
  addInvoiceCredit(
    input: { invoice: CardInvoice; amountMicros: number; description: string },
    options: { idempotencyKey: string },
  ): Promise<void>;
  /** Verifies the Stripe-Signature header over the raw body; 400 `webhook_signature_invalid` otherwise. */
  parseWebhook(rawBody: string, signature: string | null, now: number): CardEvent;
}

/** Stripe's default: a signed delivery older than this is refused (replays are deduplicated anyway). */
const WEBHOOK_TOLERANCE_S = 300;

export function createStripeCardProvider(config: CardConfig, options: { timeoutMs: number }): CardProvider {
  const base = config.apiBase;
  const stripe = new Stripe(config.secretKey, {
    timeout: options.timeoutMs,
    maxNetworkRetries: 1,
    telemetry: false,
    ...(base
      ? {
          host: base.hostname,
          port: base.port || (base.protocol === "https:" ? 443 : 80),
          protocol: base.protocol === "https:" ? "https" : "http",
        }
      : {}),
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
              price_data: {
                currency: "usd",
                unit_amount: Math.round(item.unitMicros / 10_000),
                recurring: { interval: "month" },
                product_data: { name: item.name },
              },
            })),
            customer_email: input.contact,
            client_reference_id: input.checkoutId,
            success_url: input.successUrl,
            cancel_url: input.cancelUrl,
            metadata: input.metadata,
            subscription_data: { metadata: input.metadata },
            expires_at: Math.floor(input.expiresAt / 1000),
          },
          { idempotencyKey },
        );
      } catch (error) {
        throw apiError("payment_gateway_error", {
          detail: `Stripe did not create the checkout session (${(error as { type?: string }).type ?? "network error"}); nothing was charged.`,
        });
      }
      if (!session.url) throw apiError("payment_gateway_error", { detail: "Stripe returned a session without a URL." });
      return { id: session.id, url: session.url, expiresAt: session.expires_at ? session.expires_at * 1000 : null };
    },
    async retrieveSession(id) {
      try {
        return _sessionState(await stripe.checkout.sessions.retrieve(id));
      } catch (error) {
        throw apiError("payment_gateway_error", {
          detail: `Stripe did not return the checkout session (${(error as { type?: string }).type ?? "network error"}).`,
        });
      }
    },
    async addInvoiceCredit({ invoice, amountMicros, description }, { idempotencyKey }) {
      if (!invoice.customer) throw apiError("payment_gateway_error", { detail: "The invoice has no customer." });
      try {
        await stripe.invoiceItems.create(
          { customer: invoice.customer, invoice: invoice.id, amount: -Math.round(amountMicros / 10_000), currency: "usd", description },
          { idempotencyKey },
        );
      } catch (error) {
        throw apiError("payment_gateway_error", {
          detail: `Stripe did not add the credit to the invoice (${(error as { type?: string }).type ?? "network error"}).`,
        });
      }
    },
    parseWebhook(rawBody, signature, now) {
      if (!signature) throw apiError("webhook_signature_invalid", { detail: "The Stripe-Signature header is missing." });
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, config.webhookSecret, WEBHOOK_TOLERANCE_S, undefined, now);
      } catch {
        throw apiError("webhook_signature_invalid", { detail: "The Stripe-Signature header does not match the body, or is too old." });
      }
      const object = (event.data?.object ?? {}) as { object?: string; id?: unknown };
      const session =
        object.object === "checkout.session" && typeof object.id === "string" ? _sessionState(object as Stripe.Checkout.Session) : null;
      const invoice = object.object === "invoice" && typeof object.id === "string" ? _invoice(object as Record<string, any>) : null;
      return { id: event.id, type: event.type, session, invoice };
    },
  };
}

// --- Internal helpers ---

function _sessionState(session: Stripe.Checkout.Session): CardSessionState {
  const ref = (value: unknown) =>
    typeof value === "string"
      ? value
      : value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string"
        ? (value as { id: string }).id
        : null;
  return {
    id: session.id,
    status: session.status ?? null,
    paymentStatus: session.payment_status ?? null,
    clientReferenceId: session.client_reference_id ?? null,
    metadata: (session.metadata ?? {}) as Record<string, string>,
    reference: ref(session.subscription) ?? ref(session.payment_intent),
  };
}

/** Invoices carry the subscription's metadata in `subscription_details` (older API versions) or `parent.subscription_details`. */
function _invoice(invoice: Record<string, any>): CardInvoice {
  const metadata = invoice.parent?.subscription_details?.metadata ?? invoice.subscription_details?.metadata ?? {};
  return {
    id: String(invoice.id),
    customer: typeof invoice.customer === "string" ? invoice.customer : (invoice.customer?.id ?? null),
    status: typeof invoice.status === "string" ? invoice.status : null,
    billingReason: typeof invoice.billing_reason === "string" ? invoice.billing_reason : null,
    amountDueMicros: Number.isInteger(invoice.amount_due) ? invoice.amount_due * 10_000 : 0,
    metadata: typeof metadata === "object" && metadata !== null ? (metadata as Record<string, string>) : {},
  };
}
