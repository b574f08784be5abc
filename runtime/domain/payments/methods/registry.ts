/**
 * The methods room (`payments/methods/`): the `PaymentMethod` contract (`payment-method.ts`), the
 * method ids (`method-ids.ts`), the shared pay-at-once checkout (`run-checkout.ts`), this registry,
 * and one folder per method holding everything that belongs to that method alone (its checkout
 * and environment block, its provider and OpenAPI pieces and, for card, its webhook fulfilment and
 * success page). What methods share is in `payments/purchases/`; the outside services they call
 * are in `payments/providers/`.
 *
 * The payment methods of this server, in the order buyers see them. A new method is one folder
 * beside these, one id in `method-ids.ts` and one line here; the checkout route, `GET
 * /api/checkout`, reconciliation, the start-up checks, the providers and the OpenAPI description
 * of checkout loop over this list.
 */
import { agentNetworkMethod } from "./agent-network/agent-network-method.ts";
import { cardMethod } from "./card/card-method.ts";
import type { PaymentMethodId } from "./method-ids.ts";
import type { PaymentMethod } from "./payment-method.ts";
import { x402Method } from "./x402/x402-method.ts";

// A Record so the compiler checks every id has its method; looked up through a Map (request data).
const METHODS: Record<PaymentMethodId, PaymentMethod> = {
  card: cardMethod,
  agent_network: agentNetworkMethod,
  http402: x402Method,
};
const BY_ID = new Map<string, PaymentMethod>(Object.values(METHODS).map((m) => [m.id, m]));

export const PAYMENT_METHOD_REGISTRY: readonly PaymentMethod[] = Object.freeze([...BY_ID.values()]);

export function paymentMethod(id: PaymentMethodId): PaymentMethod {
  return BY_ID.get(id)!;
}

/** The method a purchase record names; undefined for admin issuance, which no method sells. */
export function findPaymentMethod(id: string): PaymentMethod | undefined {
  return BY_ID.get(id);
}
