/**
 * A Stripe-compatible stand-in for Checkout Sessions: `POST /v1/checkout/sessions` (form-encoded,
 * bearer secret key, Idempotency-Key honoured: same key → same session) answering a
 * `checkout.session` object, and helpers that deliver signed webhook events the way Stripe does,
 * signed with the official package's `webhooks.generateTestHeaderString`.
 */
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { startStandIn, type StandInServer } from "./http-stand-in.ts";

export const STRIPE_SECRET = "sk_test_standin_0123456789";
export const WEBHOOK_SECRET = "whsec_standin_0123456789abcdef";

export interface RecordedSession {
  params: Record<string, string>;
  idempotencyKey: string | undefined;
  session: Record<string, any>;
}

export interface StripeStandIn extends StandInServer {
  sessions: RecordedSession[];
  /** A signed `Stripe-Signature` header for `payload`, at `timestamp` (seconds). */
  sign(payload: string, timestamp: number, secret?: string): string;
  /** The event JSON Stripe would send for a session (a new `evt_` id each call unless given). */
  event(type: string, session: Record<string, any>, overrides?: { id?: string; paymentStatus?: string }): string;
}

export async function startStripe(): Promise<StripeStandIn> {
  const sessions: RecordedSession[] = [];
  const byKey = new Map<string, Record<string, any>>();
  const stripe = new Stripe(STRIPE_SECRET);

  const server = await startStandIn((req) => {
    if (req.headers.authorization !== `Bearer ${STRIPE_SECRET}`) return { status: 401, body: { error: { type: "invalid_request_error", message: "Invalid API Key provided" } } };
    if (req.method !== "POST" || req.path !== "/v1/checkout/sessions") return { status: 404, body: { error: { type: "invalid_request_error", message: "Unrecognized request URL" } } };
    const idempotencyKey = req.headers["idempotency-key"] as string | undefined;
    if (idempotencyKey && byKey.has(idempotencyKey)) return { status: 200, body: byKey.get(idempotencyKey), headers: { "idempotent-replayed": "true" } };
    const params = Object.fromEntries(new URLSearchParams(req.body));
    const id = `cs_test_${randomBytes(12).toString("hex")}`;
    const metadata = Object.fromEntries(Object.entries(params).filter(([k]) => k.startsWith("metadata[")).map(([k, v]) => [k.slice(9, -1), v]));
    const session = {
      id,
      object: "checkout.session",
      mode: params.mode,
      status: "open",
      payment_status: "unpaid",
      url: `https://checkout.stripe.test/c/pay/${id}`,
      client_reference_id: params.client_reference_id ?? null,
      customer_email: params.customer_email ?? null,
      success_url: params.success_url,
      cancel_url: params.cancel_url,
      metadata,
      created: Math.floor(Date.now() / 1000),
      expires_at: Math.floor(Date.now() / 1000) + 86_400,
    };
    sessions.push({ params, idempotencyKey, session });
    if (idempotencyKey) byKey.set(idempotencyKey, session);
    return { status: 200, body: session };
  });

  return {
    ...server,
    sessions,
    sign: (payload, timestamp, secret = WEBHOOK_SECRET) => stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
    event(type, session, overrides = {}) {
      const paymentStatus = overrides.paymentStatus ?? (type === "checkout.session.completed" ? "paid" : type.endsWith("succeeded") ? "paid" : "unpaid");
      return JSON.stringify({
        id: overrides.id ?? `evt_${randomBytes(12).toString("hex")}`,
        object: "event",
        api_version: "2025-01-27.acacia",
        created: Math.floor(Date.now() / 1000),
        type,
        livemode: false,
        data: { object: { ...session, status: "complete", payment_status: paymentStatus } },
      });
    },
  };
}

export function stripeEnv(stand: StripeStandIn, relayUrl: string): Record<string, string> {
  return { STRIPE_SECRET_KEY: STRIPE_SECRET, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: stand.url, KEY_DELIVERY_URL: relayUrl };
}
