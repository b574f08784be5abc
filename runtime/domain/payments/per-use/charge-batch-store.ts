/**
 * The stored state of batched per-use charges (`charge-batcher.ts` decides when to charge what):
 * - `payreserved:<instance>:<jti>` and `paysettled:<instance>:<jti>`, count-only counters of what an
 *   instance reserved of a token (moved in the ledger's atomic step) and sent to the network;
 * - `peruse:open:<instance>:<jti>`, the record of a token an instance serves: the token sealed
 *   with AES-GCM (the record's key as associated data) under a key derived from a secret the store
 *   never holds, and the amount of the charge call in progress;
 * - `peruse:alive:<instance>`, an instance's heartbeat, and `peruse:reconciling:<instance>`, the
 *   insert-once claim of the one instance that reconciles a crashed one.
 * Counters outlive the network's charge window (LEDGER_GRACE_MS), as the token's ledger does.
 */
import type { CounterWindow, StateBackend } from "../../../state/storage/backend.ts";
import { openAnswer, type SealedAnswer, sealAnswer } from "../purchases/sealed-answer.ts";
import { LEDGER_GRACE_MS } from "./token-ledger-store.ts";

/** A token as its counters know it: its id and its `exp` (epoch ms). */
export interface BatchedToken {
  jti: string;
  expiresAt: number;
}

export interface OpenRecord {
  token: SealedAnswer;
  sub: string;
  expiresAt: number;
  /** The amount of the charge call in progress; 0 between calls. */
  sendingMicros: number;
  /**
   * The settled counter when that call began. A crash after the call was counted settled but
   * before this record was cleared leaves the counter past it: the call must not count twice.
   */
  settledBeforeMicros?: number;
}

/** One `owner`'s open record of a token, as listed: read it, open its token, remove it. */
export interface ListedOpenRecord {
  jti: string;
  read(): Promise<OpenRecord | null>;
  /** The token in clear, or null when it cannot be opened (the sealing secret changed). */
  openToken(sealed: SealedAnswer): string | null;
  remove(): Promise<void>;
}

/** An instance with a heartbeat, as listed: read its last beat. */
export interface ListedInstance {
  owner: string;
  heartbeat(): Promise<{ at: number } | null>;
}

export interface ChargeBatchStore {
  /** The count-only window of what `owner` reserved of the token, to move in the ledger's atomic step. */
  reservedWindow(owner: string, token: BatchedToken): CounterWindow;
  /** What `owner` reserved of the token and what it counted settled, as of `now`. */
  readReservedAndSettled(owner: string, token: BatchedToken, now: number): Promise<{ reservedMicros: number; settledMicros: number }>;
  readSettled(owner: string, token: BatchedToken, now: number): Promise<number>;
  addSettled(owner: string, token: BatchedToken, amountMicros: number, now: number): Promise<void>;
  /** Seals a token for its open record (the record's key is the associated data). */
  sealToken(owner: string, jti: string, token: string): SealedAnswer;
  writeOpen(owner: string, jti: string, record: OpenRecord): Promise<void>;
  removeOpen(owner: string, jti: string): Promise<void>;
  listOpen(owner: string): Promise<ListedOpenRecord[]>;
  beat(instance: string, at: number): Promise<void>;
  listInstances(): Promise<ListedInstance[]>;
  removeHeartbeat(owner: string): Promise<void>;
  /** Takes the reconciliation of `owner` for `instance` until `expiresAt`; false while another holds it. */
  claimReconciliation(owner: string, instance: string, expiresAt: number, now: number): Promise<boolean>;
}

/** `sealingSecret` seals tokens at rest (the network API key: a deployment secret the store never holds). */
export function createChargeBatchStore(backend: StateBackend, sealingSecret: string): ChargeBatchStore {
  const settledKey = (owner: string, token: BatchedToken) => _countWindow("paysettled", owner, token).key;
  return {
    reservedWindow: (owner, token) => _countWindow("payreserved", owner, token),
    async readReservedAndSettled(owner, token, now) {
      const [reserved, settled] = await backend.readCounters(
        [_countWindow("payreserved", owner, token).key, settledKey(owner, token)],
        now,
      );
      return { reservedMicros: reserved!, settledMicros: settled! };
    },
    async readSettled(owner, token, now) {
      const [settled = 0] = await backend.readCounters([settledKey(owner, token)], now);
      return settled;
    },
    async addSettled(owner, token, amountMicros, now) {
      await backend.consume([_countWindow("paysettled", owner, token)], amountMicros, now);
    },
    sealToken: (owner, jti, token) => sealAnswer(token, sealingSecret, _openKey(owner, jti)),
    async writeOpen(owner, jti, record) {
      await backend.records.setItem(_openKey(owner, jti), record);
    },
    async removeOpen(owner, jti) {
      await backend.records.removeItem(_openKey(owner, jti));
    },
    async listOpen(owner) {
      // The listed key itself reads, opens and removes its record: the one the token was sealed under.
      return (await backend.records.getKeys(`peruse:open:${owner}:`)).map((key) => ({
        jti: key.slice(key.lastIndexOf(":") + 1),
        read: () => backend.records.getItem<OpenRecord>(key),
        openToken: (sealed) => openAnswer<string>(sealed, sealingSecret, key),
        remove: () => backend.records.removeItem(key),
      }));
    },
    async beat(instance, at) {
      await backend.records.setItem(_aliveKey(instance), { at });
    },
    async listInstances() {
      return (await backend.records.getKeys("peruse:alive:")).map((key) => ({
        owner: key.slice(key.lastIndexOf(":") + 1),
        heartbeat: () => backend.records.getItem<{ at: number }>(key),
      }));
    },
    async removeHeartbeat(owner) {
      await backend.records.removeItem(_aliveKey(owner));
    },
    async claimReconciliation(owner, instance, expiresAt, now) {
      return (await backend.insertOnce(`peruse:reconciling:${owner}`, instance, expiresAt, now)).created;
    },
  };
}

// --- Internal helpers ---

function _countWindow(counter: "payreserved" | "paysettled", owner: string, token: BatchedToken): CounterWindow {
  return { key: `${counter}:${owner}:${token.jti}`, limit: Number.POSITIVE_INFINITY, expiresAt: token.expiresAt + LEDGER_GRACE_MS };
}

function _openKey(owner: string, jti: string): string {
  return `peruse:open:${owner}:${jti}`;
}

function _aliveKey(instance: string): string {
  return `peruse:alive:${instance}`;
}
