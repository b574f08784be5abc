/**
 * What the domain is handed: the part of the injected deps (`AppDeps`, runtime/deps.ts) that the
 * domain's rules read. Declared here, in the domain layer, so that the domain names what it needs
 * without importing the wiring; `AppDeps` extends it (through the edges' `EdgeDeps`) with what only
 * the layers above use (metrics, tracing), so a full deps object is a `DomainDeps` as it stands.
 * A function that needs only a few members takes `Pick<DomainDeps, …>`.
 */

import type { Clock } from "../shared/clock.ts";
import type { ListenAddress } from "../shared/http/listen-address.ts";
import type { Logger } from "../shared/logger.ts";
import type { BuildRef } from "../state/releases/build-ref.ts";
import type { CounterWindow, StateBackend } from "../state/storage/backend.ts";
import type { ClientLimiter } from "../state/storage/client-limiter.ts";
import type { KeysStore } from "../state/storage/keys-store.ts";
import type { LayerSelector } from "./layers/select-layers.ts";
import type { AnonymousLimiter } from "./metering/anonymous-limit.ts";
import type { PaymentProviders } from "./payments/providers/payment-providers.ts";
import type { RuntimeConfig } from "./runtime-config.ts";
import type { AnswerSigner } from "./signing/answer-signer.ts";

export interface DomainDeps {
  readonly config: RuntimeConfig;
  readonly clock: Clock;
  /** The build in service and the limits in force for it; swapped whole when a new release is loaded. */
  readonly build: BuildRef;
  readonly backend: StateBackend;
  readonly keys: KeysStore;
  readonly logger: Logger;
  /** Checkout and per-use payment providers; a null member is an unconfigured method. */
  readonly payments: PaymentProviders;
  /** Per-use charges summed per token and sent every PER_USE_CHARGE_BATCH_MS; absent, each is sent at once. */
  readonly perUseCharges?: PerUseCharges;
  /** Where the server listens (PORT=0 picks the port at start): what `publicBaseUrl()` falls back to. */
  readonly address: ListenAddress;
  /** Services the routes share, created once per app (free-read limits, the layer selection cache). */
  readonly shared: SharedServices;
}

/**
 * Services the routes share, created once per app by `createSharedServices` (runtime/shared-services.ts).
 * Every member is a domain or state service, so the whole shape is declared here.
 */
export interface SharedServices {
  /** Every per-client limit (state/storage/client-limiter.ts); one per app, as free reads count in its memory on SQLite. */
  readonly limits: ClientLimiter;
  readonly freeReads: {
    readonly demo: AnonymousLimiter;
    readonly search: AnonymousLimiter;
    readonly mcp: AnonymousLimiter;
    readonly pages: AnonymousLimiter;
  };
  /** Node artifacts narrowed to `layers=`, shared by GET /api/demo and MCP get_node. */
  readonly layers: LayerSelector;
  /** Signs dynamic answers and lists the published keys (`config.signing`; a key made at start without SIGNING_KEY). */
  readonly signer: AnswerSigner;
}

/**
 * What the domain asks of the per-use charge batcher (payments/per-use/charge-batcher.ts, whose
 * `ChargeBatcher` also flushes, reconciles and closes for the wiring). Declared here rather than
 * imported, as the batcher's file imports the token ledger, which takes these deps: the deps would
 * close a circle of types through them.
 */
export interface PerUseCharges {
  /** The count-only window to reserve together with the ledger, so this instance's share is durable. */
  reservedWindow(ids: PerUseTokenIds): CounterWindow;
  /** Makes the token known durably (once per token), before its first retrieval is served. */
  track(token: string, ids: PerUseTokenIds): Promise<void>;
  /** Queues one reserved retrieval's price for the token's next charge. */
  add(token: string, ids: PerUseTokenIds, amountMicros: number): void;
  /** True when a batched charge of this token was refused: serve it nothing more. */
  refused(jti: string): boolean;
}

/** A per-use token's ids, as the batcher keys its records. */
export interface PerUseTokenIds {
  jti: string;
  sub: string;
  /** Epoch ms of the token's `exp`. */
  expiresAt: number;
}
