/**
 * The payment methods' ids, and what the schemas, the order check and config must know of each
 * without importing the methods themselves (that is why this file is kept apart from
 * `registry.ts`): the request schema, the purchase journal's records and the registry share the
 * ids; the success response schemas are built from each method's success kind; `runtime/config.ts`
 * reads each method's environment block. It imports only those blocks, which import only types.
 */
import { agentNetworkEnv } from "./agent-network/agent-network-env.ts";
import { cardEnv } from "./card/card-env.ts";
import type { EnvConfigOf, MethodEnvBlock } from "./method-env.ts";
import { x402Env } from "./x402/x402-env.ts";

export const PAYMENT_METHOD_IDS = ["card", "agent_network", "http402"] as const;
export type PaymentMethodId = (typeof PAYMENT_METHOD_IDS)[number];

/**
 * What a successful checkout answers: the keys at once (201 `{ keys, receipt }`), or a session the
 * buyer pays at elsewhere (303 to it, the keys issued once the payment is reported).
 */
export const CHECKOUT_SUCCESS_STATUS = { keys: 201, checkout_session: 303 } as const;
export type CheckoutSuccess = keyof typeof CHECKOUT_SUCCESS_STATUS;

export interface PaymentMethodTraits {
  success: CheckoutSuccess;
  /** The order must name a `contact` (where the keys are delivered). */
  contactRequired: boolean;
  /** Its environment block (`<id>/<id>-env.ts`): the variables config reads for it, and their parse. */
  env: MethodEnvBlock<unknown>;
}

// `satisfies` keeps each method's literal success kind (for the schemas' types) and makes the
// compiler ask for every id.
export const PAYMENT_METHOD_TRAITS = {
  card: { success: "checkout_session", contactRequired: true, env: cardEnv },
  agent_network: { success: "keys", contactRequired: false, env: agentNetworkEnv },
  http402: { success: "keys", contactRequired: false, env: x402Env },
} as const satisfies Record<PaymentMethodId, PaymentMethodTraits>;

type Traits = typeof PAYMENT_METHOD_TRAITS;

/** Each method's config as its environment block parses it; undefined where this deployment does not configure it. */
export type MethodConfigs = { readonly [M in PaymentMethodId]: EnvConfigOf<Traits[M]["env"]> | undefined };
export type MethodSucceedingWith<S extends CheckoutSuccess> = {
  [M in PaymentMethodId]: Traits[M]["success"] extends S ? M : never;
}[PaymentMethodId];

/** The methods whose successful checkout answers `success`, in the registry's order. */
export function methodsSucceedingWith<S extends CheckoutSuccess>(success: S): MethodSucceedingWith<S>[] {
  return PAYMENT_METHOD_IDS.filter((id): id is MethodSucceedingWith<S> => PAYMENT_METHOD_TRAITS[id].success === success);
}

/** The HTTP status of a method's successful checkout (`GET /api/checkout` shows it). */
export function successStatusOf(id: PaymentMethodId): number {
  return CHECKOUT_SUCCESS_STATUS[PAYMENT_METHOD_TRAITS[id].success];
}
