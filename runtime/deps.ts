/**
 * Everything a route may use, injected once into `createApp`: tests hand in a manual clock, a
 * throwaway store and fake payment providers; the server hands in the real ones. Built in one
 * expression and frozen (`start.ts`): nothing is added to it after the app exists.
 */

import type { RuntimeConfig } from "./config.ts";
import type { ChargeBatcher } from "./domain/payments/per-use/charge-batcher.ts";
import type { PaymentProviders } from "./domain/payments/providers/create-providers.ts";
import type { Metrics } from "./edges/metrics/create-metrics.ts";
import type { Tracing } from "./edges/tracing/tracing.ts";
import type { Clock } from "./shared/clock.ts";
import type { ListenAddress } from "./shared/http/listen-address.ts";
import type { Logger } from "./shared/logger.ts";
import type { SharedServices } from "./shared-services.ts";
import type { BuildRef } from "./state/releases/build-ref.ts";
import type { StateBackend } from "./state/storage/backend.ts";
import type { KeysStore } from "./state/storage/keys-store.ts";

export type { BuildRef } from "./state/releases/build-ref.ts";

export interface AppDeps {
  readonly config: RuntimeConfig;
  readonly clock: Clock;
  /** The build in service and the limits in force for it; swapped whole when a new release is loaded. */
  readonly build: BuildRef;
  readonly backend: StateBackend;
  readonly keys: KeysStore;
  readonly logger: Logger;
  /** Checkout and per-use payment providers; a null member is an unconfigured method. */
  readonly payments: PaymentProviders;
  /** Prometheus registry and recorders of this app (GET /metrics); absent, nothing is recorded. */
  readonly metrics?: Metrics;
  /** Per-use charges summed per token and sent every PER_USE_CHARGE_BATCH_MS; absent, each is sent at once. */
  readonly perUseCharges?: ChargeBatcher;
  /** Where the server listens (PORT=0 picks the port at start): what `publicBaseUrl()` falls back to. */
  readonly address: ListenAddress;
  /** Services the routes share, created once per app (free-read limits, the layer selection cache). */
  readonly shared: SharedServices;
  /** OpenTelemetry spans (OTEL_EXPORTER_OTLP_ENDPOINT); absent, nothing is traced and nothing is wrapped. */
  readonly tracing?: Tracing;
}
