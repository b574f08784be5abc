/**
 * The one reader of the environment. Every setting is parsed and checked here, once, and the rest
 * of the runtime receives a typed, frozen `RuntimeConfig`.
 */
import { resolve } from "node:path";

export interface RetrievalLimitOverrides {
  per_key_monthly?: number;
  volume_monthly_5_keys?: number;
  hourly_rate_limit?: number;
  daily_standard?: number;
  daily_scale?: number;
}

export interface RuntimeConfig {
  port: number;
  host: string;
  /** Folder of the embedded state store (SQLite). */
  dataDir: string;
  /** Folder holding the build's `data/` (manifest, catalogue, artifacts). */
  distDir: string;
  /** Admin bearer secret; undefined disables admin issuance (403 for any bearer). */
  adminKey: string | undefined;
  publicBaseUrl: string | undefined;
  /** Overrides of the catalogue's retrieval limits (benchmarks, special deployments). */
  retrievalLimits: RetrievalLimitOverrides;
  /** Anonymous requests per minute per client address on metered-free routes. */
  anonymousPerMinute: number;
  /** Trial keys one client address may create per hour. */
  trialsPerClientHour: number;
  /** Honour X-Forwarded-For for the client address (only behind a trusted proxy). */
  trustProxy: boolean;
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Grace period for in-flight requests on SIGTERM. */
  shutdownGraceMs: number;
  /**
   * CURSOR_SECRET: HMAC secret that signs the opaque cursors of GET /v1/delta. Every instance of a
   * deployment must share it, and it must survive restarts, or clients' cursors stop verifying
   * (400 `invalid_cursor`). The default is a fixed, public value: cursors only carry a position in
   * the public changelog, so the signature guards against tampering, not disclosure.
   */
  cursorSecret: string;
  /**
   * MCP_ALLOWED_HOSTS: extra `Host` values POST /mcp accepts (comma-separated `host[:port]`), on
   * top of localhost / 127.0.0.1 / [::1] on the listening port and PUBLIC_BASE_URL's host. `*`
   * turns the Host check off (only behind a proxy that enforces its own).
   */
  mcpAllowedHosts: readonly string[];
  /** MCP_ALLOWED_ORIGINS: extra `Origin` values POST /mcp accepts (comma-separated, e.g. `https://app.example`). */
  mcpAllowedOrigins: readonly string[];
}

export class ConfigError extends Error {}

const LIMIT_FIELDS = ["per_key_monthly", "volume_monthly_5_keys", "hourly_rate_limit", "daily_standard", "daily_scale"] as const;

/**
 * @example resolveRuntimeConfig(process.env)
 */
export function resolveRuntimeConfig(env: Record<string, string | undefined>): RuntimeConfig {
  const logLevel = (env.LOG_LEVEL ?? "info") as RuntimeConfig["logLevel"];
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be debug, info, warn, error or silent, got "${logLevel}"`);
  return Object.freeze({
    port: _int(env, "PORT", 8787, 0, 65535),
    host: env.HOST ?? "127.0.0.1",
    dataDir: resolve(env.DATA_DIR ?? "./data"),
    distDir: resolve(env.DIST_DIR ?? "./dist"),
    adminKey: env.ADMIN_KEY ? env.ADMIN_KEY : undefined,
    publicBaseUrl: env.PUBLIC_BASE_URL ? env.PUBLIC_BASE_URL.replace(/\/+$/, "") : undefined,
    retrievalLimits: _limits(env.RETRIEVAL_LIMITS),
    anonymousPerMinute: _int(env, "ANON_RATE_PER_MINUTE", 120, 1, 1e9),
    trialsPerClientHour: _int(env, "TRIALS_PER_CLIENT_HOUR", 5, 1, 1e9),
    trustProxy: env.TRUST_PROXY === "1" || env.TRUST_PROXY === "true",
    maxBodyBytes: _int(env, "MAX_BODY_BYTES", 64 * 1024, 1024, 16 * 1024 * 1024),
    logLevel,
    shutdownGraceMs: _int(env, "SHUTDOWN_GRACE_MS", 10_000, 0, 600_000),
    cursorSecret: _cursorSecret(env.CURSOR_SECRET),
    mcpAllowedHosts: _list(env.MCP_ALLOWED_HOSTS, (v) => v.toLowerCase()),
    mcpAllowedOrigins: _list(env.MCP_ALLOWED_ORIGINS, (v) => _origin(v, "MCP_ALLOWED_ORIGINS")),
  });
}

// --- Internal helpers ---

const DEFAULT_CURSOR_SECRET = "vkr-delta-cursor-v1";

function _cursorSecret(raw: string | undefined): string {
  if (raw === undefined || raw === "") return DEFAULT_CURSOR_SECRET;
  if (raw.length < 16) throw new ConfigError("CURSOR_SECRET must be at least 16 characters");
  return raw;
}

/** A comma-separated list, trimmed, empties dropped, each entry normalised by `map`. */
function _list(raw: string | undefined, map: (value: string) => string): readonly string[] {
  if (!raw) return [];
  return raw.split(",").map((v) => v.trim()).filter((v) => v !== "").map(map);
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
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
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
    if (!(LIMIT_FIELDS as readonly string[]).includes(field)) throw new ConfigError(`RETRIEVAL_LIMITS: unknown field "${field}" (allowed: ${LIMIT_FIELDS.join(", ")})`);
    if (!Number.isInteger(value) || (value as number) < 1) throw new ConfigError(`RETRIEVAL_LIMITS.${field} must be a positive integer`);
    out[field as (typeof LIMIT_FIELDS)[number]] = value as number;
  }
  return out;
}
