/**
 * A Stripe-compatible stand-in: Checkout Sessions (`POST /v1/checkout/sessions`, form-encoded,
 * bearer secret key, Idempotency-Key honoured: same key → same session; `GET
 * /v1/checkout/sessions/:id`), invoice items (`POST /v1/invoiceitems`, idempotent likewise), and
 * helpers that deliver signed webhook events the way Stripe does, signed with the official
 * package's `webhooks.generateTestHeaderString`. `pay(id)` marks a session paid as the hosted
 * page would, for the success page's own check with Stripe.
 */
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { type StandInServer, startStandIn } from "./http-stand-in.ts";

export const STRIPE_SECRET = "sk_test_standin_0123456789";
export const WEBHOOK_SECRET = "whsec_standin_0123456789abcdef";

export interface RecordedSession {
  params: Record<string, string>;
  idempotencyKey: string | undefined;
  session: Record<string, any>;
}

export interface RecordedInvoiceItem {
  params: Record<string, string>;
  idempotencyKey: string | undefined;
}

export interface StripeStandIn extends StandInServer {
  sessions: RecordedSession[];
  invoiceItems: RecordedInvoiceItem[];
  /** Marks a session complete and paid (what the buyer does on the hosted page). */
  pay(sessionId: string): Record<string, any>;
  /** The event JSON Stripe would send for an invoice. */
  invoiceEvent(type: string, invoice: Record<string, any>): string;
  /** A signed `Stripe-Signature` header for `payload`, at `timestamp` (seconds). */
  sign(payload: string, timestamp: number, secret?: string): string;
  /** The event JSON Stripe would send for a session (a new `evt_` id each call unless given). */
  event(type: string, session: Record<string, any>, overrides?: { id?: string; paymentStatus?: string }): string;
}

export async function startStripe(): Promise<StripeStandIn> {
  const sessions: RecordedSession[] = [];
  const invoiceItems: RecordedInvoiceItem[] = [];
  const byKey = new Map<string, Record<string, any>>();
  const byId = new Map<string, Record<string, any>>();
  const stripe = new Stripe(STRIPE_SECRET);
  const notFound = { status: 404, body: { error: { type: "invalid_request_error", message: "Unrecognized request URL" } } };

  const server = await startStandIn((req) => {
    if (req.headers.authorization !== `Bearer ${STRIPE_SECRET}`)
      return { status: 401, body: { error: { type: "invalid_request_error", message: "Invalid API Key provided" } } };
    const idempotencyKey = req.headers["idempotency-key"] as string | undefined;
    if (req.method === "GET" && req.path.startsWith("/v1/checkout/sessions/")) {
      const session = byId.get(decodeURIComponent(req.path.slice("/v1/checkout/sessions/".length)));
      return session
        ? { status: 200, body: session }
        : { status: 404, body: { error: { type: "invalid_request_error", message: "No such checkout.session" } } };
    }
    if (req.method === "POST" && req.path === "/v1/invoiceitems") {
      if (idempotencyKey && byKey.has(idempotencyKey))
        return { status: 200, body: byKey.get(idempotencyKey), headers: { "idempotent-replayed": "true" } };
      const params = Object.fromEntries(new URLSearchParams(req.body));
      const item = {
        id: `ii_${randomBytes(8).toString("hex")}`,
        object: "invoiceitem",
        amount: Number(params.amount),
        currency: params.currency,
        invoice: params.invoice,
        customer: params.customer,
        description: params.description ?? null,
      };
      invoiceItems.push({ params, idempotencyKey });
      if (idempotencyKey) byKey.set(idempotencyKey, item);
      return { status: 200, body: item };
    }
    if (req.method !== "POST" || req.path !== "/v1/checkout/sessions") return notFound;
    if (idempotencyKey && byKey.has(idempotencyKey))
      return { status: 200, body: byKey.get(idempotencyKey), headers: { "idempotent-replayed": "true" } };
    const params = Object.fromEntries(new URLSearchParams(req.body));
    const id = `cs_test_${randomBytes(12).toString("hex")}`;
    const metadata = Object.fromEntries(
      Object.entries(params)
        .filter(([k]) => k.startsWith("metadata["))
        .map(([k, v]) => [k.slice(9, -1), v]),
    );
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
      expires_at: params.expires_at ? Number(params.expires_at) : Math.floor(Date.now() / 1000) + 86_400,
      subscription: null,
    };
    sessions.push({ params, idempotencyKey, session });
    byId.set(id, session);
    if (idempotencyKey) byKey.set(idempotencyKey, session);
    return { status: 200, body: session };
  });

  return {
    ...server,
    sessions,
    invoiceItems,
    pay(sessionId) {
      const session = byId.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      Object.assign(session, {
        status: "complete",
        payment_status: "paid",
        subscription: session.subscription ?? `sub_${randomBytes(8).toString("hex")}`,
      });
      return session;
    },
    invoiceEvent(type, invoice) {
      return JSON.stringify({
        id: `evt_${randomBytes(12).toString("hex")}`,
        object: "event",
        api_version: "2025-01-27.acacia",
        created: Math.floor(Date.now() / 1000),
        type,
        livemode: false,
        data: { object: { object: "invoice", ...invoice } },
      });
    },
    sign: (payload, timestamp, secret = WEBHOOK_SECRET) => stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }),
    event(type, session, overrides = {}) {
      const paymentStatus =
        overrides.paymentStatus ?? (type === "checkout.session.completed" ? "paid" : type.endsWith("succeeded") ? "paid" : "unpaid");
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

/** The service's environment for this stand-in: Stripe alone, plus a mail relay when given. */
export function stripeEnv(stand: StripeStandIn, relayUrl?: string): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: STRIPE_SECRET,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: stand.url,
    ...(relayUrl ? { KEY_DELIVERY_URL: relayUrl } : {}),
  };
}
