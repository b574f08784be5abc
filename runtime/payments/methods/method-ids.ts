/**
 * The payment methods' ids: the one list the request schema, the purchase journal's records and
 * the registry share. Kept apart from `registry.ts` so the schemas need not import the methods.
 */
export const PAYMENT_METHOD_IDS = ["card", "agent_network", "http402"] as const;
export type PaymentMethodId = (typeof PAYMENT_METHOD_IDS)[number];
