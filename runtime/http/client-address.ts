/** The client address for per-client limits: the socket peer, or X-Forwarded-For behind a trusted proxy. */
import type { H3Event } from "h3";

export function clientAddress(event: H3Event, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = event.req.headers.get("x-forwarded-for");
    if (forwarded) return forwarded.split(",")[0]!.trim().slice(0, 64);
  }
  return (event.req as { ip?: string }).ip ?? "unknown";
}
