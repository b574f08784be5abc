/**
 * The one reader of the environment. Every setting is parsed and checked here, once, and the rest
 * of the runtime receives a typed, frozen `RuntimeConfig`.
 */

import { resolve } from "node:path";
import { AUDIT_RETENTION_DAYS_DEFAULT } from "./domain/audit/audit-log.ts";
import { OVERRIDABLE_LIMITS } from "./domain/metering/windows.ts";
import type { EnvReader } from "./domain/payments/methods/method-env.ts";
import { type MethodConfigs, PAYMENT_METHOD_IDS, PAYMENT_METHOD_TRAITS } from "./domain/payments/methods/method-ids.ts";
import type { SigningKey } from "./shared/answer-signature.ts";
import { ConfigError } from "./shared/errors.ts";
import { type PublicSigningJwk, parsePublicKeys, parseSigningKey } from "./shared/signing-keys.ts";

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
   * (see delta/cursor-secret.ts), which gives both; there is no public default.
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

export type ReleaseStoreConfig = { kind: "dir"; dir: string } | { kind: "redis"; url: string; prefix: string };

// Declared with the other error types (a lower layer throws it too); re-exported for config's callers.
export { ConfigError } from "./shared/errors.ts";

/**
 * @example resolveRuntimeConfig(process.env)
 */
export function resolveRuntimeConfig(env: Record<string, string | undefined>): RuntimeConfig {
  refusePartialGroups(env);
  const logLevel = (env.LOG_LEVEL ?? "info") as RuntimeConfig["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be debug, info, warn, error or silent, got "${logLevel}"`);
  return _deepFreeze({
    port: _int(env, "PORT", 8787, 0, 65535),
    host: env.HOST ?? "127.0.0.1",
    dataDir: resolve(env.DATA_DIR ?? "./data"),
    distDir: resolve(env.DIST_DIR ?? "./dist"),
    artifactCacheBytes: _int(env, "ARTIFACT_CACHE_MB", 128, 1, 1e6) * 1024 * 1024,
    adminKey: env.ADMIN_KEY ? env.ADMIN_KEY : undefined,
    publicBaseUrl: env.PUBLIC_BASE_URL ? env.PUBLIC_BASE_URL.replace(/\/+$/, "") : undefined,
    retrievalLimits: _limits(env.RETRIEVAL_LIMITS),
    anonymousPerMinute: _int(env, "ANON_RATE_PER_MINUTE", 120, 1, 1e9),
    trialsPerClientHour: _int(env, "TRIALS_PER_CLIENT_HOUR", 5, 1, 1e9),
    adminFailuresPerWindow: _int(env, "ADMIN_FAILURES_PER_15_MIN", 10, 1, 1e9),
    auditRetentionDays: _int(env, "AUDIT_RETENTION_DAYS", AUDIT_RETENTION_DAYS_DEFAULT, 1, 36_500),
    interestAnonPerClientDay: _int(env, "INTEREST_ANON_PER_CLIENT_DAY", 10, 1, 1e9),
    newIdentitiesPerClientDay: _int(env, "NEW_IDENTITIES_PER_CLIENT_DAY", 50, 1, 1e9),
    outcomesPerKeyDay: _int(env, "OUTCOMES_PER_KEY_DAY", 20, 1, 1e9),
    trustProxy: env.TRUST_PROXY === "1" || env.TRUST_PROXY === "true",
    clientIpv6Prefix: _int(env, "CLIENT_IPV6_PREFIX", 64, 1, 128),
    maxBodyBytes: _int(env, "MAX_BODY_BYTES", 64 * 1024, 1024, 16 * 1024 * 1024),
    logLevel,
    shutdownGraceMs: _int(env, "SHUTDOWN_GRACE_MS", 10_000, 0, 600_000),
    headersTimeoutMs: _int(env, "HEADERS_TIMEOUT_MS", 10_000, 100, 600_000),
    requestTimeoutMs: _int(env, "REQUEST_TIMEOUT_MS", 30_000, 100, 600_000),
    cursorSecret: _cursorSecret(env.CURSOR_SECRET),
    redisUrl: redisLocator(env),
    redisWait: { replicas: _int(env, "REDIS_WAIT_REPLICAS", 1, 0, 16), timeoutMs: _int(env, "REDIS_WAIT_TIMEOUT_MS", 1000, 10, 60_000) },
    redisPrefix: _redisPrefix(env.REDIS_PREFIX),
    releaseStore: resolveReleaseStore(env),
    releasePollMs: _int(env, "RELEASE_POLL_MS", 2000, 50, 3_600_000),
    payments: _payments(env),
    metricsToken: env.METRICS_TOKEN ? env.METRICS_TOKEN : undefined,
    mcpAllowedHosts: _list(env.MCP_ALLOWED_HOSTS, (v) => v.toLowerCase()),
    mcpAllowedOrigins: _list(env.MCP_ALLOWED_ORIGINS, (v) => _origin(v, "MCP_ALLOWED_ORIGINS")),
    failpoint: env.VKR_FAILPOINT ? env.VKR_FAILPOINT : undefined,
    signing: resolveSigning(env),
    tracing: _tracing(env),
  });
}

/**
 * Settings that only work together. `required` lists what the feature needs, each entry a list of
 * alternatives (any one will do); `optional` what only makes sense with it. Setting any of them
 * without all the required ones is a mistake (a method the operator meant to offer would be
 * silently off), so start-up refuses it and names what is missing. A new setting of a feature is
 * one more name in its row (a payment method's row is its environment block).
 */
export const CONFIG_GROUPS: ReadonlyArray<{ feature: string; required: readonly (readonly string[])[]; optional: readonly string[] }> = [
  // Each payment method's block, declared in its own folder.
  ...PAYMENT_METHOD_IDS.map((id) => PAYMENT_METHOD_TRAITS[id].env),
  { feature: "key mail by SMTP", required: [["SMTP_URL"]], optional: ["SMTP_FROM"] },
  { feature: "key mail by relay", required: [["KEY_DELIVERY_URL"]], optional: ["KEY_DELIVERY_TOKEN"] },
  {
    feature: "Redis",
    required: [["REDIS_URL", "RELEASE_REDIS_URL", "REDIS_CLUSTER_NODES", "REDIS_SENTINELS"]],
    optional: ["REDIS_PREFIX", "REDIS_PASSWORD", "REDIS_SENTINEL_NAME", "REDIS_WAIT_REPLICAS", "REDIS_WAIT_TIMEOUT_MS"],
  },
];

/** Throws a ConfigError naming every feature that is configured only in part, and what it lacks. */
export function refusePartialGroups(env: Record<string, string | undefined>): void {
  const isSet = (name: string) => env[name] !== undefined && env[name] !== "";
  const problems: string[] = [];
  for (const group of CONFIG_GROUPS) {
    const given = [...group.required.flat(), ...group.optional].filter(isSet);
    if (given.length === 0) continue;
    const missing = group.required.filter((alternatives) => !alternatives.some(isSet)).map((alternatives) => alternatives.join(" or "));
    if (missing.length > 0)
      problems.push(
        `${group.feature} is configured only in part: ${given.join(", ")} ${given.length === 1 ? "is" : "are"} set, but ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} missing`,
      );
  }
  if (problems.length > 0) throw new ConfigError(problems.join("; "));
}

/**
 * The release store named by the environment (RELEASE_REDIS_URL, else RELEASE_DIR, else
 * REDIS_URL), or null. Shared by the runtime and the publisher so both always agree.
 */
export function resolveReleaseStore(env: Record<string, string | undefined>): ReleaseStoreConfig | null {
  const prefix = `${_redisPrefix(env.REDIS_PREFIX)}rel:`;
  if (env.RELEASE_REDIS_URL) return { kind: "redis", url: env.RELEASE_REDIS_URL, prefix };
  if (env.RELEASE_DIR) return { kind: "dir", dir: resolve(env.RELEASE_DIR) };
  const shared = redisLocator(env);
  if (shared) return { kind: "redis", url: shared, prefix };
  return null;
}

/** The Redis the state store uses, as one locator string, or undefined for SQLite. */
export function redisLocator(env: Record<string, string | undefined>): string | undefined {
  const named = (["REDIS_URL", "REDIS_CLUSTER_NODES", "REDIS_SENTINELS"] as const).filter((name) => env[name]);
  if (named.length > 1) throw new ConfigError(`set one of REDIS_URL, REDIS_CLUSTER_NODES and REDIS_SENTINELS, not ${named.join(" and ")}`);
  if (env.REDIS_URL) return env.REDIS_URL;
  const auth = env.REDIS_PASSWORD ? `:${encodeURIComponent(env.REDIS_PASSWORD)}@` : "";
  const nodes = (raw: string, name: string) => {
    const list = _list(raw, (v) => v);
    for (const node of list)
      if (!/^[^\s,/@]+:\d{1,5}$/.test(node)) throw new ConfigError(`${name} must be host:port,host:port…, got "${node}"`);
    return list.join(",");
  };
  if (env.REDIS_CLUSTER_NODES) return `redis+cluster://${auth}${nodes(env.REDIS_CLUSTER_NODES, "REDIS_CLUSTER_NODES")}`;
  if (env.REDIS_SENTINELS) {
    if (!env.REDIS_SENTINEL_NAME)
      throw new ConfigError("REDIS_SENTINELS needs REDIS_SENTINEL_NAME, the name the sentinels monitor the primary under");
    return `redis+sentinel://${auth}${nodes(env.REDIS_SENTINELS, "REDIS_SENTINELS")}/${encodeURIComponent(env.REDIS_SENTINEL_NAME)}`;
  }
  return undefined;
}

// --- Internal helpers ---

/** Freezes the config and everything in it (URLs included), so no part of the runtime can change it. */
function _deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) _deepFreeze(inner);
  }
  return value;
}

function _redisPrefix(raw: string | undefined): string {
  const prefix = raw === undefined || raw === "" ? "vkr:" : raw;
  if (prefix.includes("{") || prefix.includes("}"))
    throw new ConfigError("REDIS_PREFIX must not contain braces (they would break Redis Cluster hash tags)");
  return prefix;
}

function _cursorSecret(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < 16) throw new ConfigError("CURSOR_SECRET must be at least 16 characters");
  return raw;
}

/** A comma-separated list, trimmed, empties dropped, each entry normalised by `map`. */
function _list(raw: string | undefined, map: (value: string) => string): readonly string[] {
  if (!raw) return [];
  return raw
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "")
    .map(map);
}

function _origin(value: string, name: string): string {
  try {
    const origin = new URL(value).origin;
    if (origin !== "null") return origin;
  } catch {}
  throw new ConfigError(`${name}: "${value}" is not an origin (scheme://host[:port])`);
}

function _int(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

function _limits(raw: string | undefined): RetrievalLimitOverrides {
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError("RETRIEVAL_LIMITS must be a JSON object");
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new ConfigError("RETRIEVAL_LIMITS must be a JSON object");
  const out: RetrievalLimitOverrides = {};
  for (const [field, value] of Object.entries(parsed)) {
    if (!(OVERRIDABLE_LIMITS as readonly string[]).includes(field))
      throw new ConfigError(`RETRIEVAL_LIMITS: unknown field "${field}" (allowed: ${OVERRIDABLE_LIMITS.join(", ")})`);
    if (!Number.isInteger(value) || (value as number) < 1) throw new ConfigError(`RETRIEVAL_LIMITS.${field} must be a positive integer`);
    out[field as (typeof OVERRIDABLE_LIMITS)[number]] = value as number;
  }
  return out;
}

function _payments(env: Record<string, string | undefined>): PaymentsConfig {
  const keyDeliveryUrl = _httpUrl(env, "KEY_DELIVERY_URL");
  return {
    methods: _methods(env),
    keyDelivery: keyDeliveryUrl ? { url: keyDeliveryUrl.href, token: _text(env, "KEY_DELIVERY_TOKEN") } : undefined,
    smtp: _smtp(env),
    timeoutMs: _int(env, "PAYMENT_TIMEOUT_MS", 10_000, 100, 120_000),
    perUseChargeBatchMs: _int(env, "PER_USE_CHARGE_BATCH_MS", 1000, 0, 60_000),
    perUseChargeBatchMaxMicros: _int(env, "PER_USE_CHARGE_BATCH_MAX_USD_MICROS", 100_000, 1, 1_000_000_000),
    reconcileIntervalMs: _int(env, "RECONCILE_INTERVAL_MS", 60_000, 0, 86_400_000),
    cardPendingPerClient: _int(env, "CARD_PENDING_PER_CLIENT", 5, 1, 1000),
  };
}

/** Every payment method's environment block, parsed through a reader with config's checks and errors. */
function _methods(env: Record<string, string | undefined>): MethodConfigs {
  const read: EnvReader = {
    text: (name) => _text(env, name),
    httpUrl: (name) => _httpUrl(env, name),
    refuse: (message) => {
      throw new ConfigError(message);
    },
  };
  // The cast: the compiler cannot follow the loop to see that each id gets its own block's config.
  return Object.fromEntries(PAYMENT_METHOD_IDS.map((id) => [id, PAYMENT_METHOD_TRAITS[id].env.parse(read)])) as MethodConfigs;
}

/**
 * The OpenTelemetry variables, as the OTLP exporter specification defines them: the endpoint is a
 * base URL the signal's path is appended to, headers are `name=value` pairs, comma-separated, with
 * percent-encoded values.
 */
function _tracing(env: Record<string, string | undefined>): TracingConfig | null {
  const endpoint = _httpUrl(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  if (!endpoint) return null;
  if (endpoint.search || endpoint.hash) throw new ConfigError("OTEL_EXPORTER_OTLP_ENDPOINT must be a base URL without ? or #");
  const headers: Record<string, string> = Object.create(null);
  for (const pair of _list(env.OTEL_EXPORTER_OTLP_HEADERS, (v) => v)) {
    const at = pair.indexOf("=");
    const name = pair.slice(0, at).trim().toLowerCase();
    let value: string | undefined;
    try {
      value = at > 0 ? decodeURIComponent(pair.slice(at + 1).trim()) : undefined;
    } catch {}
    if (!value || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name) || /[\r\n]/.test(value))
      throw new ConfigError("OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs separated by commas (values percent-encoded)");
    headers[name] = value;
  }
  return {
    tracesUrl: `${endpoint.href.replace(/\/+$/, "")}/v1/traces`,
    headers,
    serviceName: env.OTEL_SERVICE_NAME?.trim() || "vertical-knowledge-retrieval",
    sampleRatio: _sampleRatio(env),
  };
}

/**
 * The sampler variables, read here rather than by the SDK: only the ratio samplers are offered.
 * Incoming trace context is not taken from requests, so a parent-based sampler decides as the
 * plain ratio one would (on the trace id, the same way for every span of a trace).
 */
function _sampleRatio(env: Record<string, string | undefined>): number {
  const sampler = env.OTEL_TRACES_SAMPLER?.trim() || "always_on";
  if (sampler === "always_on") return 1;
  if (sampler !== "traceidratio" && sampler !== "parentbased_traceidratio")
    throw new ConfigError(`OTEL_TRACES_SAMPLER must be always_on, traceidratio or parentbased_traceidratio, got "${sampler.slice(0, 60)}"`);
  const raw = env.OTEL_TRACES_SAMPLER_ARG?.trim() || "1";
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${raw.slice(0, 60)}"`);
  return ratio;
}

/** The variable's value; undefined when unset or empty. */
function _text(env: Record<string, string | undefined>, name: string): string | undefined {
  return env[name] ? env[name] : undefined;
}

function _smtp(env: Record<string, string | undefined>): PaymentsConfig["smtp"] {
  const raw = env.SMTP_URL;
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError("SMTP_URL must be an smtp:// or smtps:// URL");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") throw new ConfigError("SMTP_URL must be an smtp:// or smtps:// URL");
  const from = env.SMTP_FROM || `keys@${url.hostname}`;
  if (!/^[^\s@]+@[^\s@]+$/.test(from.replace(/^.*<(.+)>$/, "$1")))
    throw new ConfigError(`SMTP_FROM must be an email address, got "${from.slice(0, 100)}"`);
  return { url: raw, from };
}

function _httpUrl(env: Record<string, string | undefined>, name: string): URL | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw.slice(0, 100)}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw.slice(0, 100)}"`);
  return url;
}

/**
 * SIGNING_KEY and SIGNING_PREVIOUS_KEYS, as the runtime reads them; the publisher reads them the
 * same way to know which keys the deployment publishes.
 */
export function resolveSigning(env: Record<string, string | undefined>): RuntimeConfig["signing"] {
  const key = env.SIGNING_KEY;
  const previous = env.SIGNING_PREVIOUS_KEYS;
  const parse = <T>(name: string, run: () => T): T => {
    try {
      return run();
    } catch (error) {
      throw new ConfigError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  return {
    key: key?.trim() ? parse("SIGNING_KEY", () => parseSigningKey(key)) : null,
    previous: previous?.trim() ? parse("SIGNING_PREVIOUS_KEYS", () => parsePublicKeys(previous)) : [],
  };
}
