/**
 * How many unpaid card checkouts one client address may hold open (CARD_PENDING_PER_CLIENT).
 * An unpaid checkout costs us a Stripe session and a purchase record, and used to hold an account
 * name; without a bound a client could open them by the thousand for free.
 *
 * The places are numbered insert-once entries (`cardpending:<client>:<n>` → the purchase id), as
 * the account's key slots are, each expiring with its Stripe session: taking one is the atomic
 * test (one instance or many), so of a burst exactly the limit gets through, and it is taken
 * before anything else is done. A place is given back when the session is paid or the checkout
 * fails before the buyer got a session; an abandoned session's place runs out with the session.
 */
import { apiError } from "../../../../shared/errors.ts";
import { keyPart } from "../../../../state/storage/key-part.ts";
import type { DomainDeps } from "../../../domain-deps.ts";

/**
 * Takes a free place for `purchaseId` (or finds the one it holds) until `expiresAt`; returns its
 * store key, or throws 429 `rate_limited` when the client holds them all.
 */
export async function holdPendingPlace(
  deps: Pick<DomainDeps, "backend" | "config">,
  client: string,
  purchaseId: string,
  expiresAt: number,
  now: number,
): Promise<string> {
  const limit = deps.config.payments.cardPendingPerClient;
  const prefix = `cardpending:${keyPart(client)}`;
  for (let n = 1; n <= limit; n++) {
    const place = `${prefix}:${n}`;
    const taken = await deps.backend.insertOnce(place, purchaseId, expiresAt, now);
    if (taken.created || taken.value === purchaseId) return place;
  }
  throw apiError("rate_limited", {
    detail: `At most ${limit} unpaid card checkouts per client at a time; pay or abandon one (sessions expire after an hour) before opening another.`,
    headers: { "retry-after": "60" },
  });
}

/** Gives a place back (compare-and-delete: never one another purchase took after it ran out). */
export async function freePendingPlace(
  deps: Pick<DomainDeps, "backend">,
  place: string | null | undefined,
  purchaseId: string,
): Promise<void> {
  if (place) await deps.backend.removeOnce(place, purchaseId);
}
