/**
 * The shape of the runtime's configuration, as `runtime/config.ts` (the one reader of the
 * environment) builds it: declared here, in the domain layer, so that the domain and the edges can
 * name the config they are handed without importing the wiring that reads it. Types only.
 * Settings that a lower layer takes are declared there, by the code that takes them
 * (`ReleaseStoreConfig` in state/releases/release-store.ts), and named here.
 */
import type { SigningKey } from "../shared/answer-signature.ts";
import type { PublicSigningJwk } from "../shared/signing-keys.ts";
import type { ReleaseStoreConfig } from "../state/releases/release-store.ts";
import type { OVERRIDABLE_LIMITS } from "./metering/windows.ts";
import type { MethodConfigs } from "./payments/methods/method-ids.ts";

/** Sizes of the quota windows RETRIEVAL_LIMITS may override (the table in metering/windows.ts says which). */
export type RetrievalLimitOverrides = Partial<Record<(typeof OVERRIDABLE_LIMITS)[number], number>>;

export interface RuntimeConfig {
  port: number;
  host: string;
  /** Folder of the embedded state store (SQLite). */
  dataDir: string;
  /** Folder holding the build's `data/` (manifest, catalogue, artifacts). */
  distDir: string;
  /** ARTIFACT_CACHE_MB: bytes of artifacts kept in memory (least recently used dropped first). */
  artifactCacheBytes: number;
  /** Admin bearer secret; undefined disables admin issuance (403 for any bearer). */
  adminKey: string | undefined;
  publicBaseUrl: string | undefined;
  /** Overrides of the catalogue's retrieval limits (benchmarks, special deployments). */
  retrievalLimits: RetrievalLimitOverrides;
  /** Anonymous requests per minute per client address on metered-free routes. */
  anonymousPerMinute: number;
  /** Wrong admin bearers one client may send per 15 minutes before it gets 429. */
  adminFailuresPerWindow: number;
  /** Days an audit trail entry is kept (AUDIT_RETENTION_DAYS). */
  auditRetentionDays: number;
  /** Trial keys one client address may create per hour. */
  trialsPerClientHour: number;
  /** Anonymous interest signals (no agent_id or contact) one client address may send per UTC day. */
  interestAnonPerClientDay: number;
  /** NEW_IDENTITIES_PER_CLIENT_DAY: agent_ids or contacts not seen before that one client may bring, per UTC day, to interest and to the waitlists (each). */
  newIdentitiesPerClientDay: number;
  /**
   * OUTCOMES_PER_KEY_DAY: Proof-of-Outcome submissions one membership key may make per UTC day.
   * Each one moves the public mean that opens cohort tiers, so without a cap one member could set it.
   */
  outcomesPerKeyDay: number;
  /** Honour X-Forwarded-For for the client address (only behind a trusted proxy). */
  trustProxy: boolean;
  /**
   * CLIENT_IPV6_PREFIX: the bits of an IPv6 client address that name one client for per-client
   * limits (64: a subscriber is handed at least a /64 and picks any address in it).
   */
  clientIpv6Prefix: number;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Grace period for in-flight requests on SIGTERM. */
  shutdownGraceMs: number;
  /** HEADERS_TIMEOUT_MS / REQUEST_TIMEOUT_MS: a client must send its headers, then its whole request, within these. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /**
   * CURSOR_SECRET: HMAC secret that signs the opaque cursors of GET /v1/delta. Every instance of a
   * deployment must share it, and it must survive restarts, or clients' cursors stop verifying
   * (400 `invalid_cursor`). Unset: a random secret is generated once and kept in the state store
   * (see runtime/domain/delta/cursor-secret.ts), which gives both; there is no public default.
   */
  cursorSecret: string | undefined;
  /**
   * Shared state on Redis for several instances (see storage/redis-backend.ts), as one locator
   * (storage/redis-connection.ts): REDIS_URL (one node, or a `redis+cluster://` /
   * `redis+sentinel://` URL), else REDIS_CLUSTER_NODES, else REDIS_SENTINELS with
   * REDIS_SENTINEL_NAME (REDIS_PASSWORD for the data nodes of either). Unset keeps the embedded
   * SQLite store in DATA_DIR.
   */
  redisUrl: string | undefined;
  /**
   * REDIS_WAIT_REPLICAS (default 1) replicas must confirm each write of the money path within
   * REDIS_WAIT_TIMEOUT_MS (default 1000) when the primary has replicas online; 0 turns it off.
   */
  redisWait: { replicas: number; timeoutMs: number };
  /** REDIS_PREFIX: namespace of every Redis key of this deployment (default `vkr:`). */
  redisPrefix: string;
  /**
   * Where published releases live (see runtime/state/releases/): RELEASE_REDIS_URL, else RELEASE_DIR,
   * else REDIS_URL; null = serve DIST_DIR only. The publisher (`npm run publish`) resolves it the
   * same way, defaulting to the folder `./state/releases`.
   */
  releaseStore: ReleaseStoreConfig | null;
  /** RELEASE_POLL_MS: how often the `current` release pointer (or, without a release store, `DIST_DIR/data`) is checked; bounds a release's delay. */
  releasePollMs: number;
  /** Checkout and per-use payment providers; a provider left unconfigured is listed unavailable. */
  payments: PaymentsConfig;
  /** METRICS_TOKEN: bearer that GET /metrics requires; unset leaves /metrics open (scrapers on a private network). */
  metricsToken: string | undefined;
  /**
   * MCP_ALLOWED_HOSTS: extra `Host` values POST /mcp accepts (comma-separated `host[:port]`), on
   * top of localhost / 127.0.0.1 / [::1] on the listening port and PUBLIC_BASE_URL's host. `*`
   * turns the Host check off (only behind a proxy that enforces its own).
   */
  mcpAllowedHosts: readonly string[];
  /** MCP_ALLOWED_ORIGINS: extra `Origin` values POST /mcp accepts (comma-separated, e.g. `https://app.example`). */
  mcpAllowedOrigins: readonly string[];
  /** VKR_FAILPOINT: test-only; the process kills itself (SIGKILL) at this named point (runtime/shared/failpoint.ts). */
  failpoint: string | undefined;
  /**
   * SIGNING_KEY: the Ed25519 private key (JWK or PKCS#8 PEM) that signs dynamic answers and whose
   * public key /.well-known/jwks.json publishes; null: an ephemeral key made at start (development).
   * SIGNING_PREVIOUS_KEYS: earlier public keys kept published, so answers signed before a rotation
   * still verify.
   */
  signing: { key: SigningKey | null; previous: readonly PublicSigningJwk[] };
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: traces are exported over OTLP/HTTP to `<endpoint>/v1/traces`
   * (runtime/edges/tracing/); null (unset) installs nothing. OTEL_SERVICE_NAME names the service in
   * them, OTEL_EXPORTER_OTLP_HEADERS adds headers to each export (a collector's auth).
   */
  tracing: TracingConfig | null;
}

export interface TracingConfig {
  /** Where spans go: the OTLP/HTTP traces URL, `<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`. */
  tracesUrl: string;
  headers: Readonly<Record<string, string>>;
  serviceName: string;
  /**
   * Share of requests traced, from OTEL_TRACES_SAMPLER (`always_on`, the default, or
   * `traceidratio` / `parentbased_traceidratio`) and OTEL_TRACES_SAMPLER_ARG (the ratio, 0 to 1).
   */
  sampleRatio: number;
}

export interface PaymentsConfig {
  /**
   * Each payment method's config, keyed by its id, as its environment block
   * (`payments/methods/<id>/<id>-env.ts`) parses it; undefined leaves the method unavailable.
   */
  methods: MethodConfigs;
  /** KEY_DELIVERY_URL: where keys bought by card are delivered (a mail relay taking JSON), with an optional bearer. */
  keyDelivery: { url: string; token: string | undefined } | undefined;
  /** SMTP_URL / SMTP_FROM: keys bought by card are also mailed to `contact` through this SMTP server. */
  smtp: { url: string; from: string } | undefined;
  /** Time limit of every call to a payment provider. */
  timeoutMs: number;
  /** PER_USE_CHARGE_BATCH_MS: per-use charges are summed per token and sent this often; 0 makes each retrieval wait for its own charge. */
  perUseChargeBatchMs: number;
  /** PER_USE_CHARGE_BATCH_MAX_USD_MICROS: a token's pending charges go out at once when they reach this amount. */
  perUseChargeBatchMaxMicros: number;
  /** RECONCILE_INTERVAL_MS: how often each instance resolves purchases a crash left open (and once at start); 0 turns the timer off. */
  reconcileIntervalMs: number;
  /** CARD_PENDING_PER_CLIENT: unpaid card checkouts (open Stripe sessions) one client address may hold at a time. */
  cardPendingPerClient: number;
}
