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
import type { PaymentProviders } from "./payment-providers.ts";

export function createPaymentProviders(config: PaymentsConfig): PaymentProviders {
  const providers: Record<string, unknown> = {};
  for (const method of PAYMENT_METHOD_REGISTRY) if (method.provider) providers[method.provider.field] = method.provider.create(config);
  // The cast: each method's provider file declares its field, and the registry names every method.
  return providers as unknown as PaymentProviders;
}
