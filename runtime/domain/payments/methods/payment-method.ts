/**
 * The contract every payment method meets, so that the checkout route, `GET /api/checkout`,
 * reconciliation, start-up, the providers (`../providers/create-providers.ts`) and the OpenAPI
 * description of checkout loop over one registry (`registry.ts`) instead of naming methods (the
 * payment schemas and config take what they need from `method-ids.ts`: the traits and each
 * method's environment block). A method says whether this deployment has it, builds its provider,
 * describes itself to buyers and in OpenAPI, and runs its checkout over the purchase journal
 * (`purchase-flow.ts`), through the shared driver (`run-checkout.ts`) when it pays at once; a
 * method paid elsewhere declares how reconciliation finishes its awaiting purchases
 * (`AwaitingPayment`). A method that can also pay for one read instead of a key offers `perUse`
 * (`PerUse`): the read path (`access/read-session.ts`, `metering/meter-read.ts`) asks the registry
 * for it, never a method by name.
 */
import type { TSchema } from "@sinclair/typebox";
import type { PurchaseAccount } from "../../accounts/purchase-account.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import type { MethodProvider } from "../providers/payment-providers.ts";
import type { CheckoutOrder } from "../purchases/checkout-order.ts";
import type { SavedResponse } from "../purchases/idempotency.ts";
import type { ChargeReceipt } from "../purchases/purchase-flow.ts";
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
  /**
   * Every method's description (`GET /api/checkout`'s `methods`), for an answer that offers the
   * others: handed in by the route, since a method importing the registry would be an import circle.
   */
  paymentOptions: () => MethodDescription[];
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
  available(deps: DomainDeps): boolean;
  /**
   * The request's payment credentials for this method (headers, "" when absent), part of what
   * makes a retry "the same request" whichever method it names. Omitted by a method paid elsewhere.
   */
  credentials?(headers: Headers): string[];
  describe(deps: DomainDeps): MethodDescription;
  checkout(deps: DomainDeps, order: CheckoutOrder, account: PurchaseAccount, input: CheckoutInput, now: number): Promise<SavedResponse>;
  /** Checks at start, before listening: may refuse to start (a `ConfigError`) or log a warning. */
  atStart?(deps: DomainDeps): Promise<void>;
  /** Start-up warnings about how this deployment configured the method. */
  warnings?(deps: DomainDeps): string[];
  /**
   * Present when the provider can be asked again safely (x402: a nonce settles once): how
   * reconciliation asks for the charge of a `charging` purchase whose outcome was lost, from what
   * the record holds; null when the record holds nothing to ask with.
   */
  chargeAgain?(deps: ReconcileDeps, record: PurchaseRecord): ((attemptedBefore: boolean) => Promise<ChargeReceipt>) | null;
  /** Present when the method's charge happens elsewhere, after its checkout answered (card: at Stripe). */
  awaiting?: AwaitingPayment;
  /** What it adds to the published OpenAPI description of checkout. */
  openapi: MethodOpenApi;
  /** Present when the method can pay for one read of gated content instead of a key. */
  perUse?: PerUse;
}

/** Where a read's request carries its payment: REST headers and URL, or an MCP tool call's `_meta`. */
export interface PerUseRequest {
  headers: Headers;
  url: URL;
  /** The tool call's `_meta` (MCP); absent over REST. */
  meta?: Readonly<Record<string, unknown>>;
}

/** A per-use payment a request presented (or, where the method says so, asked to make). */
export interface PresentedPayment {
  method: PaymentMethodId;
  /** What the method reads from the request; "" where the caller asked to pay and sent no payment yet. */
  token: string;
  /** What is being paid for, as the caller named it (path and query, or the MCP tool call). */
  resource: string;
  /** The payment came in an MCP tool call's `_meta`, and the answer's payment data goes back there. */
  viaMcp?: boolean;
}

/**
 * Paying for one read (a content node's layers, a rule evaluation, a gated search) with the
 * method, instead of a key. The read session asks `authorize` before anything of the content is
 * chosen (a refusal reveals nothing), and the grant's `charge` after the answer is ready and only
 * when it is sent (a 304, a HEAD or a refused request never charges).
 */
export interface PerUse {
  /**
   * The payment this request carries for the method, or null when it names none (the caller
   * then reads as it would without it). Read on every request that reads content: cheap.
   */
  presented(request: PerUseRequest): string | null;
  /** Verifies the payment (or throws the problem that says how to pay), before any content is revealed. */
  authorize(deps: DomainDeps, payment: PresentedPayment, now: number): Promise<PerUseGrant>;
  /** For `/api/status` and `GET /api/checkout`: how a caller pays per read with this method here. */
  describe(deps: DomainDeps): PerUseDescription | null;
  /** Its part of the OpenAPI description of the reads it can pay for. */
  openapi: PerUseOpenApi;
  /** How MCP carries it: the `_meta` key of the result that reports the payment, built from the answer's headers. */
  mcpResult?(headers: Readonly<Record<string, string>>): Record<string, unknown>;
}

/** A verified per-use payment, waiting for the answer. */
export interface PerUseGrant {
  /** Charges (or settles) the read; the answer's payment headers. Throws when nothing may be served. */
  charge(deps: DomainDeps, now: number): Promise<Record<string, string>>;
}

export interface PerUseDescription {
  method: PaymentMethodId;
  price_usd: string;
  /** How a REST caller asks for it. */
  how: string;
  /** Which reads it pays for. */
  reads: string[];
  details?: Record<string, unknown>;
}

export interface PerUseOpenApi {
  /** A paragraph added to the description of each read it can pay for. */
  description: string;
  /** Request headers it pays with on reads. */
  headers?: readonly { name: string; description: string }[];
  /** Query parameters it is asked with on reads. */
  query?: readonly { name: string; description: string; values: readonly string[] }[];
  /** Response headers it adds to a read's 200 and 402. */
  responseHeaders?: Readonly<Record<number, readonly string[]>>;
}

/**
 * A method's part of the OpenAPI description of `GET` and `POST /api/checkout`, which
 * the declarations of `runtime/edges/routes/checkout.ts` assemble from every method in the registry's order.
 * Its success status (201 keys or 303 session) and whether it needs `contact` come from its
 * traits in `method-ids.ts`.
 */
export interface MethodOpenApi {
  /** What a deployment sets to offer it (`GET /api/checkout`: "card needs …"). */
  needs: string;
  /** Its paragraph in `POST /api/checkout`'s description. */
  checkout: string;
  /** The request headers it pays with. */
  headers?: readonly { name: string; description: string }[];
  /** Statuses only this method answers, whole. */
  statuses?: Readonly<Record<number, { description: string; schema?: TSchema; headers?: string[] }>>;
  /** Response headers it adds to statuses every method shares (201, 402). */
  responseHeaders?: Readonly<Record<number, readonly string[]>>;
  /** What else of its request is a 400 ("malformed x402 payment"). */
  badRequest?: string;
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
