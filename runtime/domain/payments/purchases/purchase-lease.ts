/**
 * Who works on a purchase right now. Every request (or reconciliation pass) that moves a purchase
 * takes its lease first: a second request for the same purchase while the first runs gets 409
 * (retry shortly), and a worker that crashed holds it only until it runs out, after which a retry
 * resumes from the durable record. Correctness never rests on the lease alone: the charge call and
 * the release are insert-once steps (`purchase-store.ts`), so even two workers cannot charge twice.
 */
import { randomUUID } from "node:crypto";
import { apiError, type ErrorCode } from "../../../shared/errors.ts";
import type { DomainDeps } from "../../domain-deps.ts";
import { type PurchaseClaim, releaseClaim } from "./idempotency.ts";
import { purchaseLeaseMs } from "./purchase-flow.ts";
import { createPurchaseStore, type PurchaseStore } from "./purchase-store.ts";

type InProgressCode = Extract<ErrorCode, "idempotency_in_progress" | "payment_in_progress" | "purchase_in_progress">;

/** Takes the purchase's lease or throws `code` (409, Retry-After). */
export async function leasePurchase(
  deps: Pick<DomainDeps, "backend" | "config">,
  id: string,
  holder: string,
  now: number,
  code: InProgressCode,
): Promise<void> {
  const ms = purchaseLeaseMs(deps);
  if (!(await createPurchaseStore(deps.backend).lease(id, holder, ms, now))) {
    throw apiError(code, { headers: { "retry-after": String(Math.max(1, Math.ceil(ms / 1000))) } });
  }
}

/**
 * Runs `work` with a fresh lease holder and always gives the lease back. When the work fails and
 * the purchase never charged anything (no record yet, or released), the claim is freed so the
 * client can fix the request and retry under the same key; a purchase that may have charged
 * keeps its claim, so the retry resumes it instead of starting a second one.
 */
export async function finishClaimed<T>(
  deps: DomainDeps,
  ctx: { id: string; claim: PurchaseClaim | null; inProgress: InProgressCode },
  now: number,
  work: (holder: string) => Promise<T>,
): Promise<T> {
  const holder = randomUUID();
  const store = createPurchaseStore(deps.backend);
  // Held by someone else: this throws before the claim could be touched.
  await leasePurchase(deps, ctx.id, holder, now, ctx.inProgress);
  try {
    return await work(holder);
  } catch (error) {
    if (ctx.claim) {
      const record = await store.get(ctx.id).catch(() => undefined);
      if (record === null || record?.state === "released") await releaseClaim(deps, ctx.claim).catch(() => undefined);
    }
    throw error;
  } finally {
    // A store outage that failed the work may fail this too: the lease would then block every
    // retry until it runs out, with nobody working on the purchase. Asked again in the background
    // until the store answers (compare-and-delete: never a later holder's lease).
    await store.unlease(ctx.id, holder).catch(() => _unleaseLater(store, ctx.id, holder, purchaseLeaseMs(deps)));
  }
}

// --- Internal helpers ---

const UNLEASE_RETRY_MS = 200;

function _unleaseLater(store: PurchaseStore, id: string, holder: string, leaseMs: number): void {
  let left = Math.ceil(leaseMs / UNLEASE_RETRY_MS);
  const retry = () => {
    store.unlease(id, holder).catch(() => {
      if (--left > 0) setTimeout(retry, UNLEASE_RETRY_MS).unref();
    });
  };
  setTimeout(retry, UNLEASE_RETRY_MS).unref();
}
