/**
 * HEAD asks for a response's headers, never its content. h3 answers HEAD with the GET handler, so
 * every metered GET route asks this before it counts a retrieval or charges a pay token: a HEAD is
 * treated like a 304 — access is still checked, nothing is consumed.
 */
import type { H3Event } from "h3";

export function isHeadRequest(event: H3Event): boolean {
  return event.req.method === "HEAD";
}
