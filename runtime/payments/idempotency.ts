/**
 * `Idempotency-Key` on POST /api/checkout, after Stripe's model: the first request with a key
 * claims it (atomically, insert-once), and its successful answer is saved; a retry with the same
 * key and the same request gets that answer again, a retry with a different request 422, a retry
 * while the first is still running 409. Failed attempts (any error) release the key, so a client
 * can fix the payment and retry under the same key. Claims last 24 hours.
 *
 * The saved answer holds the issued keys in clear, so it is sealed (`sealed-answer.ts`) under the
 * raw Idempotency-Key plus the payment credential of the request; the store holds only digests of
 * both. A guessable Idempotency-Key alone therefore opens nothing: the credential is needed too,
 * just as the fingerprint check already requires it for a replay.
 */
import type { AppDeps } from "../deps.ts";
import { apiError } from "../errors.ts";
import { digestOf } from "./checkout-order.ts";
import { openAnswer, sealAnswer } from "./sealed-answer.ts";

export interface SavedResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
const CLAIM_MS = 24 * 3600_000;

export interface IdempotentRequest {
  /** Digest of everything that makes two requests "the same" (stored, compared on a retry). */
  fingerprint: string;
  /** The payment credential presented (token or payment header, "" if none); never stored. */
  credential: string;
}

export async function withIdempotency(deps: AppDeps, idempotencyKey: string | null, request: IdempotentRequest, now: number, run: () => Promise<SavedResponse>): Promise<SavedResponse> {
  if (idempotencyKey === null) return run();
  if (!KEY_RE.test(idempotencyKey)) {
    throw apiError("validation_failed", { detail: "Idempotency-Key must be 1 to 255 printable ASCII characters.", errors: [{ pointer: "/header/Idempotency-Key", message: "1-255 printable ASCII characters" }] });
  }
  const id = digestOf("idem", idempotencyKey);
  const slot = `idem-result:${id}`;
  const secret = `${idempotencyKey}\u0000${request.credential}`;
  const claim = await deps.backend.insertOnce(`idem:${id}`, request.fingerprint, now + CLAIM_MS, now);
  if (!claim.created) {
    if (claim.value !== request.fingerprint) throw apiError("idempotency_key_reused");
    const record = await deps.backend.records.getItem(slot);
    if (!record) throw apiError("idempotency_in_progress", { headers: { "retry-after": "2" } });
    const saved = openAnswer<SavedResponse>(record, secret, slot);
    // Same fingerprint yet unopenable: a record from before sealing, or a damaged one.
    if (!saved) throw apiError("internal_error", { detail: "The saved answer for this Idempotency-Key cannot be read; use a new key." });
    return { ...saved, headers: { ...saved.headers, "idempotent-replayed": "true" } };
  }
  try {
    const response = await run();
    await deps.backend.records.setItem(slot, sealAnswer(response, secret, slot));
    return response;
  } catch (error) {
    await deps.backend.removeOnce(`idem:${id}`);
    throw error;
  }
}
