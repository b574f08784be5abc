/**
 * The one reader of the environment. Every setting is parsed and checked here, once, and the rest
 * of the runtime receives a typed, frozen `RuntimeConfig`.
 */

import { resolve } from "node:path";
import { AUDIT_RETENTION_DAYS_DEFAULT } from "./domain/audit/audit-log.ts";
import { OVERRIDABLE_LIMITS } from "./domain/metering/windows.ts";
import type { EnvReader } from "./domain/payments/methods/method-env.ts";
import { type MethodConfigs, PAYMENT_METHOD_IDS, PAYMENT_METHOD_TRAITS } from "./domain/payments/methods/method-ids.ts";
import type { PaymentsConfig, RetrievalLimitOverrides, RuntimeConfig, TracingConfig } from "./domain/runtime-config.ts";
import { ConfigError } from "./shared/errors.ts";
import { parsePublicKeys, parseSigningKey } from "./shared/signing-keys.ts";
import type { ReleaseStoreConfig } from "./state/releases/release-store.ts";

// Re-exported for config's callers (the wiring, the scripts and the tests): ConfigError is declared
// with the other error types (a lower layer throws it too); the shapes this file builds are declared
// below the wiring, so the layers handed a config can name it (domain/runtime-config.ts, and
// state/releases/release-store.ts for the release store's).
export type { RuntimeConfig } from "./domain/runtime-config.ts";
export { ConfigError } from "./shared/errors.ts";
export type { ReleaseStoreConfig } from "./state/releases/release-store.ts";

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
