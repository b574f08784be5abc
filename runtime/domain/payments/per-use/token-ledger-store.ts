/**
 * The stored counters of the per-token ledger (`token-ledger.ts` decides what may be spent):
 * `payledger:<jti>`, what this service has spent of a KYAPay token, and `payhold:<purchase>:<jti>`,
 * what one purchase holds of it. Both are counter windows, so every move is one atomic step of the
 * backend (one SQLite transaction or one Redis script), and both outlive the network's charge
 * window (LEDGER_GRACE_MS).
 */
import type { CounterWindow, StateBackend } from "../../../state/storage/backend.ts";

/** Sellers may charge a token up to 24 h after its `exp`. */
export const CHARGE_WINDOW_MS = 24 * 3600_000;
/** The ledger (and the batched charges' counters) outlive the charge window. */
export const LEDGER_GRACE_MS = CHARGE_WINDOW_MS + 3600_000;

/** A token's ledger: its id and its `exp` (epoch ms), as a purchase records it (`PurchaseRecord.ledger_hold`). */
export interface TokenLedgerId {
  jti: string;
  expires_at: number;
}

export interface TokenLedgerStore {
  /**
   * Adds `amountMicros` to the token's ledger unless that passes `limitMicros`, with `alongside`
   * moved in the same atomic step (all or none). `spentMicros`: the ledger after it when admitted,
   * unchanged when not.
   */
  reserve(
    ledger: TokenLedgerId,
    amountMicros: number,
    limitMicros: number,
    now: number,
    alongside?: CounterWindow[],
  ): Promise<{ admitted: boolean; spentMicros: number }>;
  /** Takes back `amountMicros` from the token's ledger. */
  giveBack(ledger: TokenLedgerId, amountMicros: number, now: number): Promise<void>;
  /** The window of a purchase's hold, admitting `amountMicros` once: to reserve `alongside` the ledger. */
  holdWindow(purchaseId: string, ledger: TokenLedgerId, amountMicros: number): CounterWindow;
  /** What the purchase holds of the token's ledger. */
  held(purchaseId: string, ledger: TokenLedgerId, now: number): Promise<number>;
  /** Takes back `amountMicros` from the token's ledger and the purchase's hold, in one atomic step. */
  giveBackHold(purchaseId: string, ledger: TokenLedgerId, amountMicros: number, now: number): Promise<void>;
}

export function createTokenLedgerStore(backend: StateBackend): TokenLedgerStore {
  return {
    async reserve(ledger, amountMicros, limitMicros, now, alongside = []) {
      const result = await backend.consume([_ledgerWindow(ledger, limitMicros), ...alongside], amountMicros, now);
      return { admitted: result.admitted, spentMicros: result.counts[0]! };
    },
    async giveBack(ledger, amountMicros, now) {
      await backend.consume([_ledgerWindow(ledger, Number.POSITIVE_INFINITY)], -amountMicros, now);
    },
    holdWindow: _holdWindow,
    async held(purchaseId, ledger, now) {
      const [held] = await backend.readCounters([_holdKey(purchaseId, ledger)], now);
      return held!;
    },
    async giveBackHold(purchaseId, ledger, amountMicros, now) {
      await backend.consume(
        [_ledgerWindow(ledger, Number.POSITIVE_INFINITY), _holdWindow(purchaseId, ledger, amountMicros)],
        -amountMicros,
        now,
      );
    },
  };
}

// --- Internal helpers ---

function _ledgerWindow(ledger: TokenLedgerId, limit: number): CounterWindow {
  return { key: `payledger:${ledger.jti}`, limit, expiresAt: ledger.expires_at + LEDGER_GRACE_MS };
}

function _holdWindow(purchaseId: string, ledger: TokenLedgerId, amountMicros: number): CounterWindow {
  return { key: _holdKey(purchaseId, ledger), limit: amountMicros, expiresAt: ledger.expires_at + LEDGER_GRACE_MS };
}

/** Ends in the token id, so on a Redis Cluster it shares the ledger's slot. */
function _holdKey(purchaseId: string, ledger: TokenLedgerId): string {
  return `payhold:${purchaseId}:${ledger.jti}`;
}
