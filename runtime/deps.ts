/**
 * Everything a route may use, injected once into `createApp`: tests hand in a manual clock, a
 * throwaway store and fake payment providers; the server hands in the real ones.
 */
import type { Artifacts } from "./storage/artifacts.ts";
import type { StateBackend } from "./storage/backend.ts";
import type { KeysStore } from "./storage/keys-store.ts";
import type { Clock } from "./clock.ts";
import type { RuntimeConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import type { Limits } from "./schema/catalog.ts";
import type { PaymentProviders } from "./payments/providers/create-providers.ts";
import type { Metrics } from "./metrics/create-metrics.ts";
import type { ChargeBatcher } from "./payments/charge-batcher.ts";
import type { AnswerSigner } from "./signing/answer-signer.ts";

/** The build in service; swapped atomically when a new release is loaded. */
export interface BuildRef {
  current: Artifacts;
}

export interface AppDeps {
  config: RuntimeConfig;
  clock: Clock;
  build: BuildRef;
  backend: StateBackend;
  keys: KeysStore;
  logger: Logger;
  /** Checkout and per-use payment providers; a null member is an unconfigured method. */
  payments: PaymentProviders;
  /** Prometheus registry and recorders of this app (GET /metrics); absent, nothing is recorded. */
  metrics?: Metrics;
  /** Per-use charges summed per token and sent every PER_USE_CHARGE_BATCH_MS; absent, each is sent at once. */
  perUseCharges?: ChargeBatcher;
  /** Signs dynamic answers and lists the published keys; createApp makes one from `config.signing` when absent. */
  signer?: AnswerSigner;
  /** Where the server listens, once it does (PORT=0 picks the port at start). */
  listening?: { url: string };
}

/** The catalogue's limits with the configured overrides applied (what /api/status reports). */
export function limitsInForce(deps: Pick<AppDeps, "build" | "config">): Limits {
  const base = deps.build.current.catalog.limits;
  let perConfig = _limitsCache.get(base);
  if (!perConfig) _limitsCache.set(base, (perConfig = new WeakMap()));
  let merged = perConfig.get(deps.config);
  if (!merged) perConfig.set(deps.config, (merged = { ...base, ...deps.config.retrievalLimits }));
  return merged;
}

// --- Internal helpers ---

// Keyed by the catalogue object, so a new build gets fresh limits without any invalidation step.
const _limitsCache = new WeakMap<Limits, WeakMap<RuntimeConfig, Limits>>();
