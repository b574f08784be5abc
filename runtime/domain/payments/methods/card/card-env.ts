/**
 * Card's environment block: Stripe Checkout's keys (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET),
 * STRIPE_API_BASE for a Stripe-compatible server, and the success and cancel pages Stripe returns
 * the buyer to. Mail delivery of the keys (SMTP_URL, KEY_DELIVERY_URL) is configured apart: it is an
 * addition, not part of the method.
 */
import type { MethodEnvBlock } from "../method-env.ts";

export interface CardConfig {
  secretKey: string;
  webhookSecret: string;
  apiBase: URL | undefined;
  successUrl: string | undefined;
  cancelUrl: string | undefined;
}

export const cardEnv: MethodEnvBlock<CardConfig> = {
  feature: "card payments (Stripe)",
  required: [["STRIPE_SECRET_KEY"], ["STRIPE_WEBHOOK_SECRET"]],
  optional: ["STRIPE_API_BASE", "STRIPE_SUCCESS_URL", "STRIPE_CANCEL_URL"],
  parse(read) {
    const secretKey = read.text("STRIPE_SECRET_KEY");
    const webhookSecret = read.text("STRIPE_WEBHOOK_SECRET");
    if (!secretKey || !webhookSecret) return undefined;
    return {
      secretKey,
      webhookSecret,
      apiBase: read.httpUrl("STRIPE_API_BASE"),
      successUrl: read.text("STRIPE_SUCCESS_URL"),
      cancelUrl: read.text("STRIPE_CANCEL_URL"),
    };
  },
};
