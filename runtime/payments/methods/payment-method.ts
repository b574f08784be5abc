/**
 * The contract every payment method meets, so that the checkout route, `GET /api/checkout`, the
 * payment schemas and the start-up warnings loop over one registry (`registry.ts`) instead of
 * naming methods. A method owns its environment block, says whether this deployment has it, how
 * it is described to buyers, and runs its checkout over the purchase journal (`purchase-flow.ts`).
 */
import type { PurchaseAccount } from "../../accounts/purchase-account.ts";
import type { AppDeps } from "../../deps.ts";
import type { CheckoutOrder } from "../purchases/checkout-order.ts";
import type { SavedResponse } from "../purchases/idempotency.ts";
import type { PaymentMethodId } from "./method-ids.ts";

/** What the route read from the request, for whichever method it is. */
export interface CheckoutInput {
  headers: Headers;
  idempotencyKey: string | null;
  /** Digest of the body and credentials: what makes a retry "the same request". */
  fingerprint: string;
  /** The KYAPay token header (`pay-network-pay-id`), if any. */
  payToken: string | null;
  /** PUBLIC_BASE_URL, else the listening address: never the request's Host. */
  baseUrl: string;
  /** The client's address (TRUST_PROXY decides which), for per-client limits such as CARD_PENDING_PER_CLIENT. */
  client: string;
}

export interface MethodDescription {
  id: PaymentMethodId;
  available: boolean;
  description: string;
  success_status: number;
  header?: string;
  details?: Record<string, unknown>;
}

export interface PaymentMethod {
  id: PaymentMethodId;
  /** The environment variables that configure it (see docs/configuration.md). */
  env: readonly string[];
  available(deps: AppDeps): boolean;
  describe(deps: AppDeps): MethodDescription;
  checkout(deps: AppDeps, order: CheckoutOrder, account: PurchaseAccount, input: CheckoutInput, now: number): Promise<SavedResponse>;
  /** Start-up warnings about how this deployment configured the method. */
  warnings?(deps: AppDeps): string[];
}
