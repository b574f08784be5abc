/**
 * Everything a route may use, injected once into `createApp`: tests hand in a manual clock, a
 * throwaway store and fake payment providers; the server hands in the real ones. Built in one
 * expression and frozen (`start.ts`): nothing is added to it after the app exists.
 *
 * Its members are declared where the layers that read them can see them: what the domain reads in
 * `DomainDeps` (domain/domain-deps.ts), what the edges add in `EdgeDeps` (edges/edge-deps.ts), and
 * here only what the wiring alone uses. No file below the wiring imports this one.
 */

import type { ChargeBatcher } from "./domain/payments/per-use/charge-batcher.ts";
import type { EdgeDeps } from "./edges/edge-deps.ts";
import type { Tracing } from "./edges/tracing/tracing.ts";

export interface AppDeps extends EdgeDeps {
  /** The whole batcher, which the wiring also flushes, reconciles and closes; the domain sees its `PerUseCharges` part. */
  readonly perUseCharges?: ChargeBatcher;
  /** OpenTelemetry spans (OTEL_EXPORTER_OTLP_ENDPOINT); absent, nothing is traced and nothing is wrapped. */
  readonly tracing?: Tracing;
}
