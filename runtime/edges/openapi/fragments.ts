/**
 * OpenAPI text that several route declarations share (a header parameter, the admin errors, the
 * browse pages' error and limit answers, the signature headers), kept in one place so the
 * routes that share it say it the same way. Each route's own text lives in its route file.
 */
import { Type } from "@sinclair/typebox";
import { PAYMENT_METHOD_REGISTRY } from "../../domain/payments/methods/registry.ts";
import type { Operation, OperationParam } from "../routes/route-declaration.ts";

/**
 * On every 200 of a node, an index, an evaluation, a search or a delta page: `Content-Digest`
 * (RFC 9530, sha-256 of the body), `Knowledge-Identity` (what the answer is) and the RFC 9421
 * signature over both (`Signature-Input` / `Signature`, label `vkr`, Ed25519).
 */
export const SIGNATURE_HEADERS = ["Content-Digest", "Knowledge-Identity", "Signature-Input", "Signature"];

export const KEY_HEADER: OperationParam = {
  name: "X-Service-Key",
  in: "header",
  schema: Type.String(),
  description: "Membership (svc_live_…) or trial (svc_trial_…) key",
};
export const RATE_HEADERS = ["RateLimit", "RateLimit-Policy"];
export const ADMIN_ERRORS = { 401: { description: "Admin authorization missing" }, 403: { description: "Admin key invalid" } };

export const HTML = { "text/html": Type.String() };
const PROBLEM = Type.Unsafe<unknown>({ $ref: "Problem" });
/** Browse routes answer errors as an HTML page to browsers (`Accept: text/html`), problem+json otherwise. */
export const PAGE_ERROR = (description: string, headers?: string[]) => ({
  description,
  content: { "application/problem+json": PROBLEM, ...HTML },
  ...(headers ? { headers } : {}),
});
export const PAGE_ERRORS_NOTE =
  "Errors: a request whose `Accept` names text/html (and does not prefer JSON) gets an HTML error page with the same status, title, code, detail and hint; other callers get problem+json.";
/** The per-client page limit (runtime/domain/metering/page-limit.ts): HTML pages answer a friendly HTML page. */
export const PAGE_LIMITED = {
  description: "Too many pages from this client in a minute (ANON_RATE_PER_MINUTE): a short HTML page saying how long to wait",
  headers: ["Retry-After"],
  content: HTML,
};
export const TEXT_LIMITED = { description: "Too many pages from this client in a minute (ANON_RATE_PER_MINUTE)", headers: ["Retry-After"] };
/** A refused key reads the free pages, warned. */
export const BAD_KEY_NOTE =
  "A malformed, unknown, revoked or expired key (header or cookie) reads what a visitor without a key reads: the page carries `Credential-Problem` and a visible notice linking to /browse/key, and a cookie that held the key is cleared (Set-Cookie with Max-Age=0). Only a page with no free view (a node of a paid vertical whose index is not free) keeps the key's 401.";

/** The statuses only one method answers (its quote, its session, its own limit), as each declares them. */
export function methodStatuses(): Operation["responses"] {
  const statuses: Operation["responses"] = {};
  for (const method of PAYMENT_METHOD_REGISTRY)
    for (const [status, response] of Object.entries(method.openapi.statuses ?? {})) statuses[Number(status)] = response;
  return statuses;
}

/** The response headers the methods add to a status they all share; none: no `headers`. */
export function responseHeadersOf(status: number): { headers?: string[] } {
  const headers = PAYMENT_METHOD_REGISTRY.flatMap((m) => m.openapi.responseHeaders?.[status] ?? []);
  return headers.length > 0 ? { headers: [...new Set(headers)] } : {};
}
/** How cohorts progress: said on the waitlist and on member telemetry, which both move it. */
export const COHORT_RULE =
  "Cohort progression is evaluated whenever a member account claims its seat (its first membership key) and whenever member telemetry arrives: when every seat of the active cohort is claimed AND the mean Proof-of-Outcome confidence over all submissions is strictly above 0.8 (scores are aggregated at 6-decimal precision), the next tier opens (inaugural → core → growth → scale → cap) and every member account of the left cohort is credited that cohort's loyalty credit ($1.90, $4.90, $9.90, $14.90) once, owed against its next monthly cycle. Members keep their cohort's price (grandfathered): a member account buys more keys in its own cohort, at that cohort's (graduated) price, whichever cohort is open to new members. A new member account takes a seat of the active cohort when its purchase is reserved, before any payment, atomically against `member_cap`, and gives it back if the purchase is released; while the active cohort is full and the next tier closed, POST /api/checkout (and admin issuance) answers a new member 409 `cohort_full` (with `cohort`, `member_cap`, `seats_claimed` and `waitlist`) before anything is charged. `seats_claimed` counts the seats held (members and new members' purchases under way) and never exceeds `member_cap`.";
