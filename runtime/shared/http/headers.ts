/**
 * Headers every response carries: request id, CORS for browser agents, and security headers suited
 * to a JSON API. `*` is safe: browsers never send cookies to a `*` origin, and the one cookie we
 * set (the browse key, HttpOnly, SameSite=Strict, Path=/browse) is read by the browse pages only.
 */
/**
 * Request headers a browser may send. The official x402 client's paid retry carries PAYMENT-SIGNATURE
 * (v2) or X-PAYMENT (v1) and also sets `Access-Control-Expose-Headers` as a REQUEST header; a
 * preflight that does not allow all three makes its `fetch` throw before the payment is sent.
 */
export const CORS_ALLOW_HEADERS =
  "Content-Type, X-Service-Key, pay-network-pay-id, Authorization, If-None-Match, Idempotency-Key, PAYMENT-SIGNATURE, X-PAYMENT, Access-Control-Expose-Headers, MCP-Protocol-Version, Mcp-Session-Id";
/**
 * Response headers a page may read: every header the OpenAPI description documents (a test checks
 * it; Set-Cookie no browser exposes), the signature's four among them, so `verifyAnswer` works in a page.
 */
export const CORS_EXPOSE_HEADERS =
  "ETag, Link, Location, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, PAYMENT-REQUIRED, PAYMENT-RESPONSE, X-PAYMENT-RESPONSE, Pay-Network-Charged, Pay-Network-Remaining, Idempotent-Replayed, Credential-Problem, Content-Digest, Knowledge-Identity, Signature-Input, Signature";

const STATIC_HEADERS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": CORS_EXPOSE_HEADERS,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
};

export function baseHeaders(requestId: string): Record<string, string> {
  return { ...STATIC_HEADERS, "x-request-id": requestId };
}

export function preflightHeaders(requestId: string): Record<string, string> {
  return {
    ...baseHeaders(requestId),
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": CORS_ALLOW_HEADERS,
    "access-control-max-age": "600",
  };
}

/** Responses whose content depends on credentials must not be shared by caches. */
export const CREDENTIAL_VARY = "X-Service-Key, pay-network-pay-id, Authorization";

export const JSON_TYPE = "application/json; charset=utf-8";

/** True when an If-None-Match header lists `etag` (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((t) => t.trim().replace(/^W\//, "") === bare);
}
