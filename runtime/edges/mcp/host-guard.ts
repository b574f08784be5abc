/**
 * DNS-rebinding protection for POST /mcp: a browser page on an attacker's domain that resolves to
 * this host sends its own `Host` (and an `Origin`), so both are checked against an allow-list:
 * localhost, 127.0.0.1 and [::1] on the port the request arrived on, PUBLIC_BASE_URL's host, and
 * MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS. A request without `Origin` (agents, curl) passes the
 * Origin check; `Host` is always present in HTTP/1.1.
 */
import type { RuntimeConfig } from "../../domain/runtime-config.ts";

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

export interface HostGuard {
  /** Null when allowed, else why the request is refused. */
  check(host: string | null, origin: string | null, localPort: number): string | null;
}

export function createHostGuard(config: Pick<RuntimeConfig, "publicBaseUrl" | "mcpAllowedHosts" | "mcpAllowedOrigins">): HostGuard {
  const publicUrl = config.publicBaseUrl ? new URL(config.publicBaseUrl) : null;
  const anyHost = config.mcpAllowedHosts.includes("*");
  const hosts = new Set(config.mcpAllowedHosts);
  const origins = new Set(config.mcpAllowedOrigins);
  if (publicUrl) {
    hosts.add(publicUrl.host.toLowerCase());
    origins.add(publicUrl.origin);
  }
  return {
    check(host, origin, localPort) {
      const h = (host ?? "").toLowerCase();
      if (!anyHost && !hosts.has(h) && !_isLoopback(h, localPort)) return `Host "${h.slice(0, 100)}" is not allowed for /mcp.`;
      if (origin === null) return null;
      if (origins.has(origin)) return null;
      let parsed: URL;
      try {
        parsed = new URL(origin);
      } catch {
        return `Origin "${origin.slice(0, 100)}" is not allowed for /mcp.`;
      }
      if (parsed.protocol === "http:" && _isLoopback(parsed.host, localPort)) return null;
      return `Origin "${origin.slice(0, 100)}" is not allowed for /mcp.`;
    },
  };
}

// --- Internal helpers ---

/** `localhost:<port>` and friends; the default port only when the server listens on 80. */
function _isLoopback(host: string, port: number): boolean {
  for (const name of LOOPBACK) {
    if (host === `${name}:${port}`) return true;
    if (port === 80 && host === name) return true;
  }
  return false;
}
