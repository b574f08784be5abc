/**
 * Wires a running service from a config: loads the build, opens the state store, creates the app
 * and listens. Used by the server entry and by tests (which inject a clock or a store).
 */
import { randomUUID } from "node:crypto";
import { serve } from "h3";
import { createApp } from "./app.ts";
import type { RuntimeConfig } from "./config.ts";
import type { AppDeps } from "./deps.ts";
import { appendAudit, pruneAudit } from "./domain/audit/audit-log.ts";
import { foldUsageHistory, USAGE_FOLD_INTERVAL_MS } from "./domain/metering/usage-history.ts";
import { PAYMENT_METHOD_REGISTRY } from "./domain/payments/methods/registry.ts";
import { createChargeBatcher } from "./domain/payments/per-use/charge-batcher.ts";
import { createPaymentProviders } from "./domain/payments/providers/create-providers.ts";
import type { PaymentProviders } from "./domain/payments/providers/payment-providers.ts";
import { startReconciler } from "./domain/payments/purchases/reconcile.ts";
import { createMetrics } from "./edges/metrics/create-metrics.ts";
import { ROUTES } from "./edges/routes/index.ts";
import { retrievalRoutes } from "./edges/routes/route-table.ts";
import { traceBackend } from "./edges/tracing/traced-backend.ts";
import { traceProviders } from "./edges/tracing/traced-providers.ts";
import type { Clock } from "./shared/clock.ts";
import { systemClock } from "./shared/clock.ts";
import { createListenAddress } from "./shared/http/listen-address.ts";
import { createLogger, type Logger } from "./shared/logger.ts";
import { createSharedServices } from "./shared-services.ts";
import { loadArtifacts } from "./state/releases/artifacts.ts";
import { createBuildRef, limitsInForce } from "./state/releases/build-ref.ts";
import { createReleaseStore } from "./state/releases/release-store.ts";
import { watchDist } from "./state/releases/watch-dist.ts";
import { startReleaseWatcher } from "./state/releases/watch-releases.ts";
import type { StateBackend } from "./state/storage/backend.ts";
import { createKeysStore } from "./state/storage/keys-store.ts";
import { openBackend } from "./state/storage/open-backend.ts";
import { holdDataDir } from "./state/storage/sqlite-backup.ts";

const AUDIT_PRUNE_INTERVAL_MS = 6 * 3_600_000;

export interface StartOptions {
  clock?: Clock;
  backend?: StateBackend;
  logger?: Logger;
  /** Replaces the providers built from `config.payments` (fakes in unit-style tests). */
  payments?: PaymentProviders;
}

export interface RunningService {
  url: string;
  port: number;
  deps: AppDeps;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), closes the store. */
  close(): Promise<void>;
}

export async function startService(config: RuntimeConfig, options: StartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const artifacts = await loadArtifacts(config.distDir, { cacheBytes: config.artifactCacheBytes });
  // The SDK is loaded only when traces are on: without an endpoint no OpenTelemetry code runs at all.
  const tracing = config.tracing
    ? await (await import("./edges/tracing/create-tracing.ts")).createTracing(config.tracing, { logger })
    : undefined;
  const openedBackend =
    options.backend ??
    (await openBackend(config, {
      onCheckpointError: (message) => logger.error("state store checkpoint failed; retried", { reason: message }),
    }));
  // `vkr restore` refuses the folder of a serving process (the lock names this pid).
  const releaseDataDir = !options.backend && openedBackend.kind === "sqlite" ? holdDataDir(config.dataDir) : null;
  // Every store operation and provider call goes through these two objects: wrapped once here, traced everywhere.
  const backend = tracing ? traceBackend(openedBackend, tracing) : openedBackend;
  const build = createBuildRef(artifacts, config.retrievalLimits);
  const providers = options.payments ?? createPaymentProviders(config.payments);
  const payments = tracing ? traceProviders(providers, tracing) : providers;
  const perUseCharges =
    config.payments.perUseChargeBatchMs > 0 && payments.agentNetwork
      ? createChargeBatcher({
          network: payments.agentNetwork,
          backend,
          logger,
          intervalMs: config.payments.perUseChargeBatchMs,
          maxBatchMicros: config.payments.perUseChargeBatchMaxMicros,
          // An injected provider without configuration (tests) seals with a per-process secret.
          sealingSecret: config.payments.methods.agent_network?.apiKey ?? randomUUID(),
          now: () => clock.now(),
        })
      : undefined;
  const deps: AppDeps = Object.freeze({
    config,
    clock,
    logger,
    backend,
    build,
    keys: createKeysStore(backend, { now: () => clock.now() }),
    payments,
    metrics: createMetrics({ build, backend, retrievalRoutes: retrievalRoutes(ROUTES) }),
    perUseCharges,
    address: createListenAddress(config),
    shared: createSharedServices(config, backend),
    tracing,
  });
  // What a crashed instance reserved and never charged goes out now, not at the next sweep.
  if (perUseCharges) void perUseCharges.reconcile();
  if (!config.signing.key)
    logger.warn(
      "SIGNING_KEY is not set: dynamic answers are signed with a key made at start (development); set it so signatures outlive this process",
    );
  for (const method of PAYMENT_METHOD_REGISTRY) await method.atStart?.(deps);
  if (!config.adminKey) logger.warn("ADMIN_KEY is not set: POST /api/keys answers 403 for any bearer");
  for (const method of PAYMENT_METHOD_REGISTRY) {
    const warnings = method.warnings?.(deps) ?? [];
    for (const warning of warnings) logger.warn(warning, { payment_method: method.id });
    await appendAudit(
      backend,
      {
        actor: "system",
        action: "payments.configured",
        subject: `method:${method.id}`,
        outcome: method.available(deps) ? "available" : "unavailable",
        detail: { warnings: warnings.length },
      },
      clock.now(),
    );
  }
  // The trail is pruned at start and then every few hours, by every instance (idempotent).
  const pruneTrail = () =>
    pruneAudit(backend, config.auditRetentionDays, clock.now()).catch((error: unknown) =>
      logger.error("audit trail pruning failed", { reason: error instanceof Error ? error.message : String(error) }),
    );
  await pruneTrail();
  const pruneTimer = setInterval(() => void pruneTrail(), AUDIT_PRUNE_INTERVAL_MS);
  pruneTimer.unref();
  // Yesterday's per-key counts go into the usage history (metering/usage-history.ts): off the
  // metered path, once a day across instances; the check is repeated so a day after midnight is never missed.
  let folding: Promise<unknown> = Promise.resolve();
  const foldUsage = () =>
    (folding = foldUsageHistory(deps, limitsInForce(deps), clock.now()).catch((error: unknown) =>
      logger.error("usage history fold failed; retried", { reason: error instanceof Error ? error.message : String(error) }),
    ));
  // Not awaited: a start never waits on a daily batch over every key (close waits for it).
  void foldUsage();
  const foldTimer = setInterval(() => void foldUsage(), USAGE_FOLD_INTERVAL_MS);
  foldTimer.unref();
  // Follow published releases (the current one is in service before the first request), or else
  // the build published in DIST_DIR: either way a new build is swapped in whole, never mixed.
  const releaseStore = config.releaseStore ? await createReleaseStore(config.releaseStore) : null;
  const releases = releaseStore
    ? startReleaseWatcher({ store: releaseStore, build: deps.build, pollMs: config.releasePollMs, logger })
    : watchDist({
        distDir: config.distDir,
        build: deps.build,
        logger,
        pollMs: config.releasePollMs,
        cacheBytes: config.artifactCacheBytes,
      });
  if (releaseStore) await releases.check();

  const server = serve(createApp(deps), {
    port: config.port,
    hostname: config.host,
    silent: true,
    gracefulShutdown: false,
    // Slow or stalled clients must not hold sockets forever (408, then the socket is closed). Node
    // checks these every `connectionsCheckingInterval` (30 s by default, which would let a 10 s
    // limit stretch to 40 s), so the check runs at a fraction of the headers limit.
    node: {
      requestTimeout: Math.max(config.requestTimeoutMs, config.headersTimeoutMs),
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.headersTimeoutMs / 4)),
      keepAliveTimeout: 5_000,
      maxHeaderSize: 16 * 1024,
    },
  });
  await server.ready();
  const address = server.node?.server?.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  deps.address.bind(url);
  // Purchases a crash left open are finished or undone without waiting for their buyers to retry.
  const stopReconciler = config.payments.reconcileIntervalMs > 0 ? startReconciler(deps, config.payments.reconcileIntervalMs) : null;
  logger.info("listening", { url, build_id: deps.build.current.buildId, store: backend.kind });
  if (config.tracing) {
    const traces = new URL(config.tracing.tracesUrl);
    // Origin and path only: credentials in the URL stay out of the logs.
    logger.info("traces are exported", { url: traces.origin + traces.pathname, service: config.tracing.serviceName });
  }

  let closing: Promise<void> | null = null;
  return {
    url,
    port,
    deps,
    close: () =>
      (closing ??= (async () => {
        const force = setTimeout(() => void server.close(true), config.shutdownGraceMs);
        await server.close();
        clearTimeout(force);
        releases.stop();
        clearInterval(pruneTimer);
        clearInterval(foldTimer);
        await folding;
        stopReconciler?.();
        // Charges for content already served go out before the process ends.
        await deps.perUseCharges?.close();
        await releaseStore?.dispose();
        await backend.close();
        releaseDataDir?.();
        // Last, so the spans of everything above leave too.
        await tracing?.shutdown();
        logger.info("stopped");
      })()),
  };
}
