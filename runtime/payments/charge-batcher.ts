/**
 * Batched per-use charges (PER_USE_CHARGE_BATCH_MS > 0). The network lets a pay token be charged
 * several times, for any amount up to its balance, up to 24 h after its `exp`, and asks sellers
 * to charge after delivering; so the price of every retrieval a token made in the last interval
 * goes out as ONE charge call instead of one call per request, which was the per-use path's
 * bottleneck (an HTTPS round trip and an undici request inside every retrieval).
 *
 * Never overspending does not depend on this: the spend ledger (`token-ledger.ts`) reserves each
 * retrieval atomically and durably before content is chosen, so a token never buys more than its
 * value or its `mnr`. What batching trades away: content is served before its charge is
 * confirmed. A charge the network refuses is logged with the token's `jti` for reconciliation and
 * the token is refused on this instance from then on; pending amounts are flushed on shutdown,
 * and a crash loses at most one interval's charges (the seller's loss, never the buyer's).
 */
import type { Logger } from "../logger.ts";
import type { AgentNetworkProvider } from "./providers/agent-network.ts";

export interface ChargeBatcher {
  /** Queues one retrieval's price for the token's next charge. */
  add(token: string, ids: { jti: string; sub: string }, amountMicros: number): void;
  /** True when a batched charge of this token was refused: serve it nothing more. */
  refused(jti: string): boolean;
  /** Sends every pending charge now. */
  flush(): Promise<void>;
  /** Flushes, then stops the timer. */
  close(): Promise<void>;
}

interface Pending {
  token: string;
  sub: string;
  amountMicros: number;
  requests: number;
}

export function createChargeBatcher(options: { network: AgentNetworkProvider; intervalMs: number; logger: Logger }): ChargeBatcher {
  const { network, logger } = options;
  let pending = new Map<string, Pending>();
  const refused = new Set<string>();
  let inFlight: Promise<void> = Promise.resolve();

  const sendAll = async (batch: Map<string, Pending>) => {
    await Promise.all(
      [...batch].map(async ([jti, p]) => {
        try {
          const result = await network.charge(p.token, p.amountMicros);
          logger.info("per-use charges sent", { jti, sub: p.sub, requests: p.requests, charged_usd_micros: result.chargedMicros });
        } catch (error) {
          refused.add(jti);
          logger.error("per-use batched charge failed; reconcile by hand", { jti, sub: p.sub, requests: p.requests, amount_usd_micros: p.amountMicros, reason: (error as Error).message });
        }
      }),
    );
  };
  const flush = () => {
    if (pending.size === 0) return inFlight;
    const batch = pending;
    pending = new Map();
    // Batches go out one after another, so a token's charges never race each other.
    inFlight = inFlight.then(() => sendAll(batch));
    return inFlight;
  };
  const timer = setInterval(() => void flush(), options.intervalMs);
  timer.unref();

  return {
    add(token, ids, amountMicros) {
      const p = pending.get(ids.jti);
      if (p) {
        p.amountMicros += amountMicros;
        p.requests += 1;
      } else pending.set(ids.jti, { token, sub: ids.sub, amountMicros, requests: 1 });
    },
    refused: (jti) => refused.has(jti),
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
