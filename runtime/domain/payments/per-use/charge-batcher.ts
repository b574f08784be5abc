/**
 * Per-use charges in batches, the default (PER_USE_CHARGE_BATCH_MS, 1000 ms). The network lets a
 * pay token be charged several times, for any amount up to its balance, up to 24 h after its
 * `exp`, and asks sellers to charge after delivering; so the price of every retrieval a token made
 * goes out as ONE charge call per interval, or as soon as the token's pending amount reaches
 * PER_USE_CHARGE_BATCH_MAX_USD_MICROS, instead of a 20–50 ms network round trip inside every
 * retrieval.
 *
 * Never serving more than a token covers does not depend on this: the spend ledger
 * (`token-ledger.ts`) reserves each retrieval atomically and durably before content is chosen.
 * Never charging more than was reserved, and losing at most one bounded batch to a crash, rest on
 * three durable facts per (instance, token), all kept by `charge-batch-store.ts`:
 * - `payreserved:<instance>:<jti>`, a counter in the same atomic step as the ledger reservation;
 * - `paysettled:<instance>:<jti>`, a counter of what went out to the network (or was given up);
 * - the record `peruse:open:<instance>:<jti>` (the token, sealed with AES-GCM under a key derived
 *   from the network API key, which the store never holds, and the amount of the call in
 *   progress), written before the token's first retrieval is served and before each outside call.
 * Each instance writes a heartbeat record; an instance whose heartbeat is stale crashed. Any live
 * instance then claims its records and charges `reserved − settled`: the unsent batch is
 * reconciled. A call that was in flight at the crash has an unknown outcome; it is counted as
 * charged (the seller's possible loss, never the buyer's double charge) and logged for the
 * operator. A refused charge is logged with the token's `jti` and the token is refused here from
 * then on; pending amounts are flushed on shutdown.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../../../shared/logger.ts";
import type { StateBackend } from "../../../state/storage/backend.ts";
import type { PerUseCharges, PerUseTokenIds } from "../../domain-deps.ts";
import type { AgentNetworkProvider } from "../providers/agent-network.ts";
import type { SealedAnswer } from "../purchases/sealed-answer.ts";
import { createChargeBatchStore, type OpenRecord } from "./charge-batch-store.ts";
import { CHARGE_WINDOW_MS } from "./token-ledger-store.ts";

/** The batcher whole: what the domain asks of it (`PerUseCharges`), and what the wiring does with it. */
export interface ChargeBatcher extends PerUseCharges {
  /** Sends every pending charge now. */
  flush(): Promise<void>;
  /** Charges what crashed instances left reserved and unsent. */
  reconcile(): Promise<void>;
  /** Flushes, then stops the timers and removes this instance's records. */
  close(): Promise<void>;
}

export interface ChargeBatcherOptions {
  network: AgentNetworkProvider;
  backend: StateBackend;
  logger: Logger;
  intervalMs: number;
  /** A token's pending amount that sends its batch before the interval ends. */
  maxBatchMicros: number;
  /** Seals tokens at rest (the network API key: a deployment secret the store never holds). */
  sealingSecret: string;
  /** The service clock, for counter windows; heartbeats use real time, since they detect real crashes. */
  now?: () => number;
}

interface Pending {
  token: string;
  ids: PerUseTokenIds;
  amountMicros: number;
  requests: number;
}

export function createChargeBatcher(options: ChargeBatcherOptions): ChargeBatcher {
  const { network, logger } = options;
  const store = createChargeBatchStore(options.backend, options.sealingSecret);
  const now = options.now ?? Date.now;
  const instance = randomUUID();
  // An instance is presumed crashed once its heartbeat is this old.
  const staleMs = Math.max(3 * options.intervalMs, 3_000);
  let pending = new Map<string, Pending>();
  const refused = new Set<string>();
  const tracked = new Map<string, { done: Promise<void>; expiresAt: number }>();
  let inFlight: Promise<void> = Promise.resolve();

  /** One outside call under the durable protocol: record the amount, call, count it settled, clear the record. */
  const sendOne = async (
    owner: string,
    token: string,
    ids: PerUseTokenIds,
    amountMicros: number,
    requests: number,
    sealed: SealedAnswer = store.sealToken(owner, ids.jti, token),
  ) => {
    const settledBeforeMicros = await store.readSettled(owner, ids, now());
    const record: OpenRecord = { token: sealed, sub: ids.sub, expiresAt: ids.expiresAt, sendingMicros: amountMicros, settledBeforeMicros };
    await store.writeOpen(owner, ids.jti, record);
    try {
      const result = await network.charge(token, amountMicros);
      logger.info("per-use charges sent", { jti: ids.jti, sub: ids.sub, requests, charged_usd_micros: result.chargedMicros });
    } catch (error) {
      refused.add(ids.jti);
      logger.error("per-use batched charge failed; reconcile by hand", {
        jti: ids.jti,
        sub: ids.sub,
        requests,
        amount_usd_micros: amountMicros,
        reason: (error as Error).message,
      });
    }
    // Settled whatever the answer: a refused amount is the operator's to chase, never re-sent.
    await store.addSettled(owner, ids, amountMicros, now());
    await store.writeOpen(owner, ids.jti, { ...record, sendingMicros: 0 });
  };

  const sendAll = async (batch: Map<string, Pending>) => {
    await Promise.all(
      [...batch.values()].map((p) =>
        sendOne(instance, p.token, p.ids, p.amountMicros, p.requests).catch((error: unknown) => {
          // The store failed around the call: the durable facts still let reconciliation finish it.
          logger.error("per-use charge bookkeeping failed; reconciliation will settle it", {
            jti: p.ids.jti,
            reason: (error as Error).message,
          });
        }),
      ),
    );
  };
  const send = (batch: Map<string, Pending>) => {
    // Batches go out one after another, so a token's charges never race each other.
    inFlight = inFlight.then(() => sendAll(batch));
    return inFlight;
  };
  const flush = () => {
    if (pending.size === 0) return inFlight;
    const batch = pending;
    pending = new Map();
    return send(batch);
  };

  const heartbeat = () => store.beat(instance, Date.now());

  const reconcileInstance = async (owner: string) => {
    if (!(await store.claimReconciliation(owner, instance, Date.now() + staleMs, Date.now()))) return;
    for (const open of await store.listOpen(owner)) {
      const record = await open.read();
      const jti = open.jti;
      if (!record) continue;
      const ids = { jti, sub: record.sub, expiresAt: record.expiresAt };
      if (record.sendingMicros > 0) {
        const settledNow = await store.readSettled(owner, ids, now());
        if (record.settledBeforeMicros === undefined || settledNow === record.settledBeforeMicros) {
          logger.warn("per-use charge interrupted by a crash; counted as charged, check the network's records", {
            jti,
            sub: record.sub,
            amount_usd_micros: record.sendingMicros,
          });
          await store.addSettled(owner, ids, record.sendingMicros, now());
        }
      }
      const { reservedMicros, settledMicros } = await store.readReservedAndSettled(owner, ids, now());
      const unsent = reservedMicros - settledMicros;
      const token = open.openToken(record.token);
      if (token === null) {
        logger.error("per-use record cannot be opened (the network API key changed?); reconcile by hand", {
          jti,
          sub: record.sub,
          amount_usd_micros: unsent,
        });
      } else if (unsent > 0 && now() < record.expiresAt + CHARGE_WINDOW_MS) {
        await sendOne(owner, token, ids, unsent, 0, record.token);
        logger.info("per-use charges reconciled after a crash", { jti, sub: record.sub, charged_usd_micros: unsent });
      }
      await open.remove();
    }
    await store.removeHeartbeat(owner);
  };

  let reconciling: Promise<void> | null = null;
  const reconcile = () =>
    (reconciling ??= (async () => {
      try {
        for (const { owner, heartbeat: lastBeat } of await store.listInstances()) {
          if (owner === instance) continue;
          const alive = await lastBeat();
          if (alive && Date.now() - alive.at > staleMs) await reconcileInstance(owner);
        }
      } catch (error) {
        logger.error("per-use reconciliation failed; retried later", { reason: (error as Error).message });
      } finally {
        reconciling = null;
      }
    })());

  /** Tokens past the network's charge window can owe nothing more: their records go, so the store and the map stay bounded. */
  const prune = async () => {
    for (const [jti, entry] of tracked) {
      if (now() < entry.expiresAt + CHARGE_WINDOW_MS || pending.has(jti)) continue;
      tracked.delete(jti);
      await store.removeOpen(instance, jti);
    }
  };
  let ticks = 0;
  const timer = setInterval(() => {
    void flush();
    void heartbeat().catch(() => {});
    if (++ticks % 60 === 0) void inFlight.then(prune).catch(() => {});
  }, options.intervalMs);
  timer.unref();
  const sweeper = setInterval(() => void reconcile(), staleMs);
  sweeper.unref();
  void heartbeat().catch(() => {});

  return {
    reservedWindow: (ids) => store.reservedWindow(instance, ids),
    track(token, ids) {
      let entry = tracked.get(ids.jti);
      if (!entry) {
        const record: OpenRecord = {
          token: store.sealToken(instance, ids.jti, token),
          sub: ids.sub,
          expiresAt: ids.expiresAt,
          sendingMicros: 0,
        };
        // The heartbeat goes first, so a record is never found without its instance's heartbeat.
        const done = heartbeat().then(() => store.writeOpen(instance, ids.jti, record));
        done.catch(() => tracked.delete(ids.jti));
        tracked.set(ids.jti, (entry = { done, expiresAt: ids.expiresAt }));
      }
      return entry.done;
    },
    add(token, ids, amountMicros) {
      let p = pending.get(ids.jti);
      if (p) {
        p.amountMicros += amountMicros;
        p.requests += 1;
      } else pending.set(ids.jti, (p = { token, ids, amountMicros, requests: 1 }));
      if (p.amountMicros >= options.maxBatchMicros) {
        pending.delete(ids.jti);
        void send(new Map([[ids.jti, p]]));
      }
    },
    refused: (jti) => refused.has(jti),
    flush,
    reconcile,
    async close() {
      clearInterval(timer);
      clearInterval(sweeper);
      await flush();
      await reconciling;
      // Everything reserved here is settled: nothing is left for another instance to reconcile.
      try {
        for (const jti of tracked.keys()) await store.removeOpen(instance, jti);
        await store.removeHeartbeat(instance);
      } catch (error) {
        logger.warn("per-use records not removed at shutdown; reconciliation will find nothing to charge", {
          reason: (error as Error).message,
        });
      }
    },
  };
}
