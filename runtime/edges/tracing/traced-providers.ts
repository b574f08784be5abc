/**
 * The payment providers as tracing sees them: every call to a provider (Stripe, the agent payment
 * network, the x402 facilitator's verify and settle, key delivery) is a CLIENT span
 * `payment <provider> <operation>`, e.g. `payment x402 settle`. Providers are the one way the
 * payment methods reach outside services, so wrapping them here covers every outbound payment call
 * without an edit in `payments/`. A provider's members that are themselves services (the card
 * method's `stripe` and `delivery`) are wrapped the same way, named `card.stripe`, `card.delivery`.
 */
import type { PaymentProviders } from "../../domain/payments/providers/payment-providers.ts";
import { traceMethods } from "./traced-methods.ts";
import type { Tracing } from "./tracing.ts";

export function traceProviders(payments: PaymentProviders, tracing: Tracing): PaymentProviders {
  const traced: Record<string, unknown> = {};
  for (const [field, provider] of Object.entries(payments)) traced[field] = _traceService(provider, field, tracing);
  // The cast: every field keeps its provider's type, only wrapped.
  return traced as unknown as PaymentProviders;
}

// --- Internal helpers ---

function _traceService(service: unknown, name: string, tracing: Tracing): unknown {
  if (service === null || typeof service !== "object") return service;
  const members = Object.entries(service);
  if (members.some(([, value]) => typeof value === "function"))
    return traceMethods(service, tracing, (method) => ({
      name: `payment ${name} ${method}`,
      attributes: { "vkr.payment.provider": name, "vkr.payment.operation": method },
    }));
  // A bundle of services (card: the Stripe client, the mailer and a secret): each service wrapped.
  const bundle: Record<string, unknown> = {};
  for (const [key, value] of members)
    bundle[key] = value !== null && typeof value === "object" ? _traceService(value, `${name}.${key}`, tracing) : value;
  return bundle;
}
