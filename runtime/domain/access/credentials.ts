/**
 * What the caller presented: a service key (X-Service-Key, `?key=`, or `Authorization: Bearer
 * svc_…` for MCP clients that only send bearer tokens), a per-use payment (whichever payment
 * method offers per use and finds its payment in the request: `payments/methods/per-use-read.ts`),
 * or nothing.
 * A key that is malformed, unknown, revoked or expired is a 401, never a silent downgrade to
 * anonymous access; only a read of free content (`resolveReader` + `decideRead`) serves the free
 * view anyway, and says so.
 */
import { boundedCache } from "../../shared/cache.ts";
import { type ApiError, apiError, isApiError } from "../../shared/errors.ts";
import { type KeyRecord, parseKeyString } from "../../shared/schema/keys.ts";
import type { KeysStore } from "../../state/storage/keys-store.ts";
import { hashKey } from "../keys/key-secret.ts";
import { refuseEndedGrace } from "../keys/manage-key.ts";
import type { PresentedPayment } from "../payments/methods/payment-method.ts";
import { presentedPayment } from "../payments/methods/per-use-read.ts";

export interface PresentedCredentials {
  key: string | null;
  /** A per-use payment instead of a key (agent_network's pay token, x402's `pay=x402`); not read when a key is presented, since the key wins. */
  payment: PresentedPayment | null;
}

export type Caller = { kind: "anonymous" } | { kind: "key"; record: KeyRecord } | { kind: "payment"; payment: PresentedPayment };

export function readCredentials(headers: Headers, url: URL, options: { allowQueryKey: boolean }): PresentedCredentials {
  let key = headers.get("x-service-key");
  if (key === null && options.allowQueryKey) key = url.searchParams.get("key");
  if (key === null) {
    const auth = headers.get("authorization");
    if (auth && /^bearer\s+svc_/i.test(auth)) key = auth.replace(/^bearer\s+/i, "");
  }
  if (key !== null) return { key: key.trim(), payment: null };
  return { key: null, payment: presentedPayment({ headers, url }, url.pathname + url.search) };
}

/**
 * Resolves a presented key to its active record, or throws the matching 401. A key seen before
 * whose record the keys store holds fresh is resolved at once, without a promise: that is every
 * request of an agent that keeps its key, and a promise chain there was a visible share of a
 * metered request.
 */
export function resolveKey(key: string, keys: KeysStore, now: number): KeyRecord | Promise<KeyRecord> {
  const known = knownDigests.get(key);
  const cached = known === undefined ? undefined : keys.cached(known);
  if (cached !== undefined) return _checkRecord(cached, known!, now, keys);
  return _lookUpKey(key, keys, now);
}

/**
 * A reader of content: the caller, or, when the presented key was refused (401), an anonymous
 * caller plus the refusal, so free content can still be served (`decideRead` decides).
 */
export interface Reader {
  caller: Caller;
  credentialProblem: ApiError | null;
}

/** A caller (being) resolved, as a reader: a refused key becomes anonymous plus the refusal. */
export function toReader(caller: Caller | Promise<Caller>): Reader | Promise<Reader> {
  if (!(caller instanceof Promise)) return { caller, credentialProblem: null };
  return caller.then(
    (resolved): Reader => ({ caller: resolved, credentialProblem: null }),
    (error: unknown): Reader => {
      if (isCredentialRefusal(error)) return { caller: { kind: "anonymous" }, credentialProblem: error };
      throw error;
    },
  );
}

/** A 401 for the presented key itself (malformed, unknown, revoked, expired). */
export function isCredentialRefusal(error: unknown): error is ApiError {
  return (
    isApiError(error) &&
    (error.code === "key_invalid" || error.code === "key_revoked" || error.code === "key_expired" || error.code === "key_rerolled")
  );
}

/**
 * The caller behind the credentials; a key wins over a payment token when both are sent. Without
 * a promise when nothing has to be read; a refused key then throws at once.
 */
export function resolveCaller(credentials: PresentedCredentials, keys: KeysStore, now: number): Caller | Promise<Caller> {
  if (credentials.key !== null) {
    const record = resolveKey(credentials.key, keys, now);
    return record instanceof Promise ? record.then((r): Caller => ({ kind: "key", record: r })) : { kind: "key", record };
  }
  if (credentials.payment !== null) return { kind: "payment", payment: credentials.payment };
  return { kind: "anonymous" };
}

// --- Internal helpers ---

async function _lookUpKey(key: string, keys: KeysStore, now: number): Promise<KeyRecord> {
  if (parseKeyString(key) === null)
    throw apiError("key_invalid", { detail: "The key does not have the shape of a service key (svc_live_… or svc_trial_…)." });
  const hash = knownDigests.get(key) ?? hashKey(key);
  const record = await keys.get(hash);
  // The record was looked up by this very digest, so the check below only guards against a store
  // that answers with another record; it compares two public digests, not a secret, so it needs no
  // constant-time compare (that was about 2% of a metered request's CPU).
  if (!record || record.hash !== hash) throw apiError("key_invalid");
  _rememberDigest(key, hash);
  return _checkRecord(record, hash, now, keys);
}

/**
 * A found record's own refusals (revoked, expired); `hash` is the digest it was found by. The
 * entry of a re-rolled secret stands for the key's record while its grace lasts, then is refused.
 */
function _checkRecord(record: KeyRecord, hash: string, now: number, keys: KeysStore): KeyRecord | Promise<KeyRecord> {
  if (record.hash !== hash) throw apiError("key_invalid");
  if (record.replaced_by !== undefined) return _followReroll(record, now, keys);
  if (record.status === "revoked") throw apiError("key_revoked");
  if (record.expires_at !== null && Date.parse(record.expires_at) <= now) throw apiError("key_expired");
  return record;
}

async function _followReroll(alias: KeyRecord, now: number, keys: KeysStore): Promise<KeyRecord> {
  refuseEndedGrace(alias, now);
  const current = await keys.get(alias.replaced_by!);
  if (!current) throw apiError("key_invalid");
  return _checkRecord(current, alias.replaced_by!, now, keys);
}

/**
 * Digests of keys that matched a record, so an agent's key, sent on every request, is hashed
 * once rather than each time (SHA-256 was about 5% of a metered request's CPU under load). Kept
 * in process memory only, never stored or logged; only keys that matched a record enter, so
 * random keys cannot churn it, and it is bounded. Revocation and expiry are still checked on the
 * record each time: this caches the hash, not the answer.
 */
const KNOWN_DIGESTS_MAX = 20_000;
const knownDigests = boundedCache<string, string>(KNOWN_DIGESTS_MAX);

function _rememberDigest(key: string, hash: string): void {
  if (knownDigests.has(key)) return;
  knownDigests.set(key, hash);
}
