/**
 * The contract every payment method meets, so that the checkout route, `GET /api/checkout`,
 * reconciliation and start-up loop over one registry (`registry.ts`) instead of naming methods
 * (the payment schemas take what they need from `method-ids.ts`). A method owns its environment block, says whether this deployment has it, how
 * it is described to buyers, and runs its checkout over the purchase journal (`purchase-flow.ts`),
 * through the shared driver (`run-checkout.ts`) when it pays at once; a method paid elsewhere
 * declares how reconciliation finishes its awaiting purchases (`AwaitingPayment`).
 */
import type { PurchaseAccount } from "../../accounts/purchase-account.ts";
import type { AppDeps } from "../../deps.ts";
import type { CheckoutOrder } from "../purchases/checkout-order.ts";
import type { SavedResponse } from "../purchases/idempotency.ts";
import type { MethodProvider } from "../providers/create-providers.ts";
import type { PurchaseRecord } from "../purchases/purchase-store.ts";
import type { ReconcileDeps } from "../purchases/reconcile.ts";
import type { PaymentMethodId } from "./method-ids.ts";

/** What the route read from the request, for whichever method it is. */
export interface CheckoutInput {
  headers: Headers;
  idempotencyKey: string | null;
  /** Digest of the body and credentials: what makes a retry "the same request". */
  fingerprint: string;
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
  /**
   * Its provider (`<id>/<id>-provider.ts`) when it calls an outside service: built once at start
   * from its config (its environment block is in `method-ids.ts`), injected as `deps.payments`.
   */
  provider?: MethodProvider;
  available(deps: AppDeps): boolean;
  /**
   * The request's payment credentials for this method (headers, "" when absent), part of what
   * makes a retry "the same request" whichever method it names. Omitted by a method paid elsewhere.
   */
  credentials?(headers: Headers): string[];
  describe(deps: AppDeps): MethodDescription;
  checkout(deps: AppDeps, order: CheckoutOrder, account: PurchaseAccount, input: CheckoutInput, now: number): Promise<SavedResponse>;
  /** Checks at start, before listening: may refuse to start (a `ConfigError`) or log a warning. */
  atStart?(deps: AppDeps): Promise<void>;
  /** Start-up warnings about how this deployment configured the method. */
  warnings?(deps: AppDeps): string[];
  /** Present when the method's charge happens elsewhere, after its checkout answered (card: at Stripe). */
  awaiting?: AwaitingPayment;
}

/**
 * A method whose checkout leaves the purchase `awaiting_payment` (the buyer pays on another page,
 * a webhook reports it): what reconciliation (`../purchases/reconcile.ts`) asks of it.
 */
export interface AwaitingPayment {
  /**
   * An awaiting purchase nobody works on (the caller holds its lease): left waiting, or resolved
   * (keys issued, or released). `action` says which, for the operator's report.
   */
  reconcile(deps: ReconcileDeps, record: PurchaseRecord, now: number): Promise<{ record: PurchaseRecord; action: string }>;
  /** How an operator sees an awaiting purchase now, changing nothing. */
  status(record: PurchaseRecord, now: number): string;
  /** Reconciliation issued this method's keys (from any open state): deliver them as its own fulfilment would. */
  issued?(deps: ReconcileDeps, record: PurchaseRecord, now: number): Promise<void>;
}
