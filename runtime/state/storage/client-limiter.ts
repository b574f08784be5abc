/**
 * Every per-client limit, in one table and behind one operation: a fixed window per subject (a
 * client network from http/client-address.ts, or a key id), counted in the state store so every
 * instance shares it (SQLite's counter rows, or Redis single, Cluster or Sentinel).
 *
 * Consume first, then act: `consume` takes the request's place in the window atomically and
 * refuses when none is left, and a refused request counts nothing. Reading a count, acting and
 * then writing let one concurrent burst through whole; there is no separate check to misuse.
 *
 * This file is the owner of the limits' store keys: nothing else builds them. The keys are the
 * ones each limit used before it moved here, so live counts carry over a deploy and Redis still
 * knows them as limit counters (ASYNC_COUNTER_PREFIXES in redis-backend.ts).
 */
import { apiError, type ErrorCode, isApiError } from "../../shared/errors.ts";
import type { StateBackend } from "./backend.ts";
import { keyPart } from "./key-part.ts";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const ADMIN_WINDOW_MS = 15 * MINUTE_MS;

interface ClientLimitRule {
  readonly windowMs: number;
  /** The store key of `subject`'s count in window number `window` (its start over `windowMs`). */
  readonly key: (subject: string, window: number) => string;
  /**
   * Counted in this process's memory on the embedded store, and while a shared store is
   * unreachable: free reads are never counted against a key, so a store write on their hot path
   * buys nothing on one instance, and they keep being served in an outage (each instance then
   * limits on its own). Memory stays bounded by one window of distinct clients.
   */
  readonly inMemoryWhenLocal?: true;
}

const RULES = {
  // Free reads: each surface has its own ANON_RATE_PER_MINUTE per client. `rate:` marks a limit's
  // counter; the client is hex in a hash tag, so a proxy's odd text cannot move it between slots.
  "free-reads:demo": _freeReads("demo"),
  "free-reads:search": _freeReads("search"),
  "free-reads:mcp": _freeReads("mcp"),
  "free-reads:pages": _freeReads("pages"),
  /** POST /api/trial: TRIALS_PER_CLIENT_HOUR. */
  trial: { windowMs: HOUR_MS, key: (client, hour) => `trialrate:${client}:${hour}` },
  /** Admin bearers compared at once per client (ADMIN_FAILURES_PER_WINDOW); see access/admin.ts. */
  "admin-guesses": { windowMs: ADMIN_WINDOW_MS, key: (client, w) => `adminfail:${client}:${w * ADMIN_WINDOW_MS}` },
  /** Wrong admin bearers per client, counted without a limit; read to tell a wait from a refusal. */
  "admin-wrong": { windowMs: ADMIN_WINDOW_MS, key: (client, w) => `adminwrong:${client}:${w * ADMIN_WINDOW_MS}` },
  /** New waitlist parties per client and UTC day (NEW_IDENTITIES_PER_CLIENT_DAY). */
  "waitlist-new": { windowMs: DAY_MS, key: (client, day) => `waitlist-new:${client}:${day}` },
  /** Anonymous demand signals per client and UTC day (INTEREST_ANON_PER_CLIENT_DAY). */
  "interest-anon": { windowMs: DAY_MS, key: (client, day) => `interest-anon:${client}:${day}` },
  /** New agents or contacts signalling demand per client and UTC day (NEW_IDENTITIES_PER_CLIENT_DAY). */
  "interest-new": { windowMs: DAY_MS, key: (client, day) => `interest-new:${client}:${day}` },
  /** Proof-of-Outcome submissions per key id and UTC day (OUTCOMES_PER_KEY_DAY). */
  outcomes: { windowMs: DAY_MS, key: (keyId, day) => `poo:day:${keyId}:${day}` },
} satisfies Record<string, ClientLimitRule>;

export type ClientLimitName = keyof typeof RULES;

export interface ClientLimiter {
  /**
   * Counts `cost` against `subject` in the window of `now`, or nothing when that would pass
   * `limit`. Returns 0 when admitted, else the seconds until the window ends (at least 1): the
   * Retry-After of the refusal.
   */
  consume(name: ClientLimitName, subject: string, limit: number, now: number, cost?: number): Promise<number>;
  /** `consume`, throwing `code` (a 429-class problem) with its Retry-After when refused. */
  assert(name: ClientLimitName, subject: string, limit: number, now: number, refusal: LimitRefusal): Promise<void>;
  /** Returns `cost` consumed earlier at the same `now`, so to the same window. */
  giveBack(name: ClientLimitName, subject: string, now: number, cost?: number): Promise<void>;
  /** `subject`'s count in the window of `now`. */
  count(name: ClientLimitName, subject: string, now: number): Promise<number>;
}

export interface LimitRefusal {
  code: ErrorCode;
  detail: string;
}

export function createClientLimiter(backend: Pick<StateBackend, "kind" | "consume" | "readCounters">): ClientLimiter {
  const memory = new Map<ClientLimitName, _MemoryCount>();
  const inMemory = (name: ClientLimitName): _MemoryCount => {
    let count = memory.get(name);
    if (!count) memory.set(name, (count = new _MemoryCount()));
    return count;
  };
  const local = backend.kind === "sqlite";

  const consume = async (name: ClientLimitName, subject: string, limit: number, now: number, cost = 1): Promise<number> => {
    const rule: ClientLimitRule = RULES[name];
    const window = Math.floor(now / rule.windowMs);
    const endsAt = (window + 1) * rule.windowMs;
    if (rule.inMemoryWhenLocal && local) return inMemory(name).consume(subject, window, limit, cost) ? 0 : _wait(endsAt, now);
    let result;
    try {
      result = await backend.consume([{ key: rule.key(subject, window), limit, expiresAt: endsAt }], cost, now);
    } catch (error) {
      if (rule.inMemoryWhenLocal && isApiError(error) && error.code === "store_unavailable") {
        return inMemory(name).consume(subject, window, limit, cost) ? 0 : _wait(endsAt, now);
      }
      throw error;
    }
    return result.admitted ? 0 : _wait(endsAt, now);
  };

  return {
    consume,
    async assert(name, subject, limit, now, refusal) {
      const wait = await consume(name, subject, limit, now);
      if (wait > 0) throw apiError(refusal.code, { detail: refusal.detail, headers: { "retry-after": String(wait) } });
    },
    async giveBack(name, subject, now, cost = 1) {
      await consume(name, subject, Number.POSITIVE_INFINITY, now, -cost);
    },
    async count(name, subject, now) {
      const rule: ClientLimitRule = RULES[name];
      const window = Math.floor(now / rule.windowMs);
      if (rule.inMemoryWhenLocal && local) return inMemory(name).read(subject, window);
      const [n = 0] = await backend.readCounters([rule.key(subject, window)], now);
      return n;
    },
  };
}

// --- Internal helpers ---

function _freeReads(surface: string): ClientLimitRule {
  return {
    windowMs: MINUTE_MS,
    key: (client, minute) => `rate:${surface}:{${keyPart(client)}}:${minute}`,
    inMemoryWhenLocal: true,
  };
}

function _wait(endsAt: number, now: number): number {
  return Math.max(1, Math.ceil((endsAt - now) / 1000));
}

/** One window's counts per subject, replaced when the window moves on. */
class _MemoryCount {
  private window = -1;
  private counts = new Map<string, number>();

  consume(subject: string, window: number, limit: number, cost: number): boolean {
    this.roll(window);
    const n = (this.counts.get(subject) ?? 0) + cost;
    if (n > limit) return false;
    this.counts.set(subject, n);
    return true;
  }

  read(subject: string, window: number): number {
    this.roll(window);
    return this.counts.get(subject) ?? 0;
  }

  private roll(window: number): void {
    if (window === this.window) return;
    this.window = window;
    this.counts = new Map();
  }
}
