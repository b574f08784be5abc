/**
 * The client address that per-client limits key on: the socket peer, or, behind a trusted proxy
 * (TRUST_PROXY), the rightmost X-Forwarded-For entry. That is the one the proxy itself appended;
 * entries to its left are whatever the client sent, so taking the leftmost (h3's getRequestIP)
 * would let a client pick a fresh address for every request and escape every per-client limit.
 */
import type { H3Event } from "h3";

export function clientAddress(event: H3Event, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = event.req.headers.get("x-forwarded-for");
    if (forwarded) {
      const last = forwarded.slice(forwarded.lastIndexOf(",") + 1).trim();
      if (last !== "") return last.slice(0, 64);
    }
  }
  return (event.req as { ip?: string }).ip ?? "unknown";
}
