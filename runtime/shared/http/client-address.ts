/**
 * The client that per-client limits key on: the socket peer, or, behind a trusted proxy
 * (TRUST_PROXY), the rightmost X-Forwarded-For entry. That is the one the proxy itself appended;
 * entries to its left are whatever the client sent, so taking the leftmost (h3's getRequestIP)
 * would let a client pick a fresh address for every request and escape every per-client limit.
 * The address is then reduced to its network (client-network.ts): one IPv4 host however written,
 * an IPv6 client's /CLIENT_IPV6_PREFIX, so a client cannot escape by spelling or by subnet.
 */
import type { H3Event } from "h3";
import { clientNetwork } from "./client-network.ts";

/** The part of the runtime config (TRUST_PROXY, CLIENT_IPV6_PREFIX) that says who the client is. */
export interface ClientAddressConfig {
  readonly trustProxy: boolean;
  readonly clientIpv6Prefix: number;
}

export function clientAddress(event: H3Event, config: ClientAddressConfig): string {
  return clientNetwork(_peerOrForwarded(event, config.trustProxy), config.clientIpv6Prefix);
}

// --- Internal helpers ---

function _peerOrForwarded(event: H3Event, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = event.req.headers.get("x-forwarded-for");
    if (forwarded) {
      const last = forwarded.slice(forwarded.lastIndexOf(",") + 1).trim();
      if (last !== "") return last.slice(0, 64);
    }
  }
  return (event.req as { ip?: string }).ip ?? "unknown";
}
