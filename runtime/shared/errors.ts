/**
 * The error catalogue: every error the API can answer, by stable code. Handlers throw
 * `apiError("quota_exceeded", { detail, extra })`; `app.ts` renders it as RFC 9457 problem+json.
 * Codes are part of the public contract (clients branch on them), so never rename one.
 */
export interface ErrorDefinition {
  status: number;
  title: string;
  /** How the caller can fix it; shown as `hint`. */
  hint?: string;
}

export const ERRORS = {
  bad_request: { status: 400, title: "Bad request" },
  validation_failed: { status: 400, title: "The request is not valid", hint: "See `errors` for each field." },
  invalid_json: { status: 400, title: "The body is not valid JSON" },
  json_too_deep: {
    status: 400,
    title: "The JSON body nests too deep",
    hint: "Arrays and objects may nest at most 64 levels deep; no field of this API needs more than a few.",
  },
  invalid_unicode: {
    status: 400,
    title: "A string in the body is not well-formed Unicode",
    hint: "Send text as UTF-8 without lone surrogate escapes (\\ud800–\\udfff alone); see `errors` for where.",
  },
  vertical_missing: {
    status: 400,
    title: "The vertical parameter is required",
    hint: "Pass ?vertical=<slug>; GET /api/status lists them.",
  },
  vertical_unknown: { status: 400, title: "Unknown vertical", hint: "GET /api/status lists the accepted slugs." },
  vertical_not_allowed: { status: 400, title: "This vertical is not accepted here" },
  trial_key_invalid: {
    status: 400,
    title: "trial_key is not a trial key issued here",
    hint: "POST /api/trial gives a trial key; Proof-of-Value is for trial keys.",
  },
  self_referral: { status: 400, title: "A member cannot refer itself" },
  invalid_cursor: {
    status: 400,
    title: "The cursor is not valid",
    hint: "Pass a next_cursor exactly as GET /v1/delta returned it, or start again with ?since=.",
  },
  key_missing: { status: 401, title: "A service key is required", hint: "Send it in the X-Service-Key header." },
  key_invalid: { status: 401, title: "The service key is not valid", hint: "Check the key; POST /api/trial gives a trial key." },
  key_revoked: { status: 401, title: "The service key was revoked" },
  key_rerolled: {
    status: 401,
    title: "The service key was replaced by a new secret",
    hint: "The key was re-rolled and its grace period is over; use the new secret its owner was given.",
  },
  key_expired: {
    status: 401,
    title: "The service key has expired",
    hint: "Trial keys last 24 hours; POST /api/checkout for a membership.",
  },
  membership_required: {
    status: 401,
    title: "A membership key is required",
    hint: "Trial keys do not unlock this; see POST /api/checkout.",
  },
  admin_auth_missing: { status: 401, title: "Admin authorization is required", hint: "Send Authorization: Bearer <admin key>." },
  payment_required: { status: 402, title: "Payment or a key is required for these layers" },
  payment_failed: { status: 402, title: "The payment failed" },
  checkout_payment_required: {
    status: 402,
    title: "Payment is required to complete this checkout",
    hint: "Pay one of `accepts` (x402 v1; the PAYMENT-REQUIRED header carries v2) for the `quote`, e.g. with @x402/fetch, and send the request again with X-PAYMENT or PAYMENT-SIGNATURE.",
  },
  read_payment_required: {
    status: 402,
    title: "Payment is required for this read",
    hint: "Pay one of `accepts` (x402 v1; the PAYMENT-REQUIRED header carries v2) for this one read, e.g. with @x402/fetch, and send the same request again with PAYMENT-SIGNATURE or X-PAYMENT. One payment pays for one read.",
  },
  payment_token_invalid: {
    status: 402,
    title: "The payment token is not valid",
    hint: "Get a pay or kya-pay token for this service from the agent payment network and send it in pay-network-pay-id.",
  },
  payment_token_required: {
    status: 402,
    title: "A pay or kya-pay token is required",
    hint: "A kya (identity-only) token carries no funds; get a pay or kya-pay token.",
  },
  payment_token_expired: { status: 402, title: "The payment token has expired", hint: "Get a fresh token from the agent payment network." },
  payment_token_depleted: {
    status: 402,
    title: "The payment token's balance is used up",
    hint: "Get a new token with enough value, or use a key.",
  },
  payment_malformed: {
    // The spec's 402 for an invalid payment token; the code says it could not even be read.
    status: 402,
    title: "The payment header is malformed",
    hint: "Send base64 of the x402 PaymentPayload JSON (at most 8 KB).",
  },
  webhook_signature_invalid: { status: 400, title: "The webhook signature is not valid" },
  payment_in_progress: {
    status: 409,
    title: "This payment is being processed",
    hint: "Retry in a few seconds; the first request's answer will be repeated.",
  },
  payment_owned_by_another_account: {
    status: 409,
    title: "This payment bought keys for another account",
    hint: "A payment buys keys for the account it was first sent for: send it again with that agent_id, or with a key of that account.",
  },
  payment_unconfirmed: {
    status: 409,
    title: "An interrupted attempt may have used this payment",
    hint: "Do not pay again for these keys: an operator is checking the payment with the provider. Send the same request (same Idempotency-Key) again later to get the keys once it is confirmed; contact support quoting the purchase id.",
  },
  purchase_in_progress: {
    status: 409,
    title: "This purchase is being processed",
    hint: "Retry in a few seconds with the same request; it is finished, never charged twice.",
  },
  idempotency_in_progress: {
    status: 409,
    title: "A request with this Idempotency-Key is still being processed",
    hint: "Retry in a few seconds.",
  },
  idempotency_key_reused: {
    status: 422,
    title: "This Idempotency-Key was used with a different request",
    hint: "Use a new key for a new request.",
  },
  payment_gateway_error: { status: 502, title: "The payment provider did not answer properly", hint: "Nothing was issued; retry later." },
  admin_auth_invalid: { status: 403, title: "The admin key is not valid" },
  account_proof_required: {
    status: 403,
    title: "This account belongs to someone else",
    hint: "To buy for an existing account, send one of its live membership keys in X-Service-Key; a new agent_id creates a new account.",
  },
  key_mismatch: {
    status: 403,
    title: "The key in the body is not the caller's key",
    hint: "Send the same key in X-Service-Key and in the body.",
  },
  vertical_forbidden: { status: 403, title: "This key does not unlock this vertical" },
  cross_site_form: {
    status: 403,
    title: "This form can only be sent from this site's own pages",
    hint: "Open /browse/key on this site and send the form from there.",
  },
  module_not_in_trial: {
    status: 403,
    title: "This module is not part of the trial",
    hint: "A trial key unlocks only the modules marked trial in its vertical's index; members get all.",
  },
  not_found: { status: 404, title: "Not found" },
  node_not_found: { status: 404, title: "No such node in this vertical", hint: "GET /api/demo?vertical=<slug> lists the nodes." },
  key_not_found: { status: 404, title: "Key not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  not_acceptable: { status: 406, title: "Not acceptable" },
  conflict: { status: 409, title: "Conflict" },
  already_member: { status: 409, title: "This agent is already a member", hint: "Referral credit is for bringing new members." },
  key_kind_not_allowed: {
    status: 403,
    title: "This kind of key cannot use this endpoint",
    hint: "See the endpoint's description for the key it needs.",
  },
  already_referred: { status: 409, title: "This agent was already referred", hint: "Each agent can be referred once, by one member." },
  trial_exists: { status: 409, title: "This agent already has an active trial for this vertical" },
  cohort_full: {
    status: 409,
    title: "Every seat of the cohort open to new members is claimed",
    hint: "Nothing was charged. Join the waitlist (POST /api/waitlist) to hear when the next cohort opens; existing members can still buy keys.",
  },
  request_timeout: {
    status: 408,
    title: "The request did not arrive in time",
    hint: "Send the whole request within the server's time limit.",
  },
  body_too_large: { status: 413, title: "The request body is too large" },
  unsupported_media_type: { status: 415, title: "Send the body as application/json" },
  rate_limited: { status: 429, title: "Too many requests", hint: "Wait for Retry-After seconds." },
  quota_exceeded: { status: 429, title: "The quota of this key is used up for this window", hint: "Wait for Retry-After seconds." },
  outcome_limit_reached: {
    status: 429,
    title: "This key's Proof-of-Outcome submissions for today are used up",
    hint: "Nothing was recorded; submit again after Retry-After seconds (the next UTC day).",
  },
  trial_exhausted: { status: 429, title: "The trial's 500 calls are used up", hint: "POST /api/checkout for a membership." },
  // Nginx's non-standard 499: the client closed the connection before its request was complete.
  // Nobody reads this answer; the status is for logs and metrics, which must not count it as a 5xx.
  client_closed_request: { status: 499, title: "The client closed the connection before its request was complete" },
  internal_error: { status: 500, title: "Internal error", hint: "Retry later; quote the request id if it persists." },
  store_unavailable: { status: 503, title: "The state store is unavailable", hint: "Retry shortly." },
  payment_provider_unavailable: { status: 503, title: "This payment method is not available" },
  // A deliberate refusal, not an outage: the caller's credential is not one this deployment (or route) takes.
  per_use_not_accepted: {
    status: 402,
    title: "Per-use payment tokens are not accepted here",
    hint: "Use a key in X-Service-Key: POST /api/trial for a free trial, POST /api/checkout for a membership.",
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERRORS;

export interface FieldError {
  /** JSON Pointer into the request (body, or `/query/<name>`, `/header/<name>`). */
  pointer: string;
  message: string;
}

export interface ApiErrorOptions {
  detail?: string;
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** Extension members of the problem body, e.g. payment options on a 402. */
  extra?: Record<string, unknown>;
}

/** The one error class: a catalogue code plus data. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly options: ApiErrorOptions;
  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    super(options.detail ?? ERRORS[code].title);
    this.code = code;
    this.status = ERRORS[code].status;
    this.options = options;
  }
}

/** @example throw apiError("node_not_found", { detail: `No node "x" in travel` }) */
export function apiError(code: ErrorCode, options?: ApiErrorOptions): ApiError {
  return new ApiError(code, options);
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** A deployment's configuration is refused (at start, before listening): the message names what to fix. */
export class ConfigError extends Error {}
