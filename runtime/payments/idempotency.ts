/**
 * `Idempotency-Key` on POST /api/checkout, after Stripe's model: the first request with a key
 * claims it (atomically, insert-once), and its successful answer is saved; a retry with the same
 * key and the same request gets that answer again, a retry with a different request 422, a retry
 * while the first is still running 409. Failed attempts (any error) release the key, so a client
 * can fix the payment and retry under the same key. Claims last 24 hours.
 */
import type { AppDeps } from "../deps.ts";
import { apiError } from "../errors.ts";
import { digestOf } from "./checkout-order.ts";

export interface SavedResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const KEY_RE = /^[\x21-\x7e]{1,255}$/;
const CLAIM_MS = 24 * 3600_000;

export async function withIdempotency(deps: AppDeps, idempotencyKey: string | null, fingerprint: string, now: number, run: () => Promise<SavedResponse>): Promise<SavedResponse> {
  if (idempotencyKey === null) return run();
  if (!KEY_RE.test(idempotencyKey)) {
    throw apiError("validation_failed", { detail: "Idempotency-Key must be 1 to 255 printable ASCII characters.", errors: [{ pointer: "/header/Idempotency-Key", message: "1-255 printable ASCII characters" }] });
  }
  const id = digestOf("idem", idempotencyKey);
  const claim = await deps.backend.insertOnce(`idem:${id}`, fingerprint, now + CLAIM_MS, now);
  if (!claim.created) {
    if (claim.value !== fingerprint) throw apiError("idempotency_key_reused");
    const saved = await deps.backend.records.getItem<SavedResponse>(`idem-result:${id}`);
    if (!saved) throw apiError("idempotency_in_progress", { headers: { "retry-after": "2" } });
    return { ...saved, headers: { ...saved.headers, "idempotent-replayed": "true" } };
  }
  try {
    const response = await run();
    await deps.backend.records.setItem(`idem-result:${id}`, response);
    return response;
  } catch (error) {
    await deps.backend.removeOnce(`idem:${id}`);
    throw error;
  }
}
