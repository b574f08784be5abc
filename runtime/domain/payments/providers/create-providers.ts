/**
 * The providers room (`payments/providers/`): clients of the outside services the payment methods
 * call (Stripe, the agent payment network, the x402 facilitator) and of key delivery by mail,
 * behind interfaces so tests inject stand-ins that speak the real wire protocol.
 *
 * The payment providers of a deployment, built once from config and injected into `createApp`.
 * Each method that calls an outside service builds its own (`methods/<id>/<id>-provider.ts`,
 * named on the method in the registry); this loops over them. A provider whose configuration is
 * missing is null: its method is listed unavailable and requests for it answer 503
 * `payment_provider_unavailable`.
 */
import type { PaymentsConfig } from "../../runtime-config.ts";
import { PAYMENT_METHOD_REGISTRY } from "../methods/registry.ts";

/**
 * One field per method that has a provider, null when unconfigured. Each method's provider file
 * adds its own field (a `declare module` block beside its factory), so a new method names its
 * provider's type in its own folder and `deps.payments.<field>` is typed without an edit here.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from each method's provider file.
export interface PaymentProviders {}

/** How a method builds its provider (or null) from the payments config; `field` is its place in `PaymentProviders`. */
export type MethodProvider = {
  [F in keyof PaymentProviders]: { field: F; create(config: PaymentsConfig): PaymentProviders[F] };
}[keyof PaymentProviders];

export function createPaymentProviders(config: PaymentsConfig): PaymentProviders {
  const providers: Record<string, unknown> = {};
  for (const method of PAYMENT_METHOD_REGISTRY) if (method.provider) providers[method.provider.field] = method.provider.create(config);
  // The cast: each method's provider file declares its field, and the registry names every method.
  return providers as unknown as PaymentProviders;
}
