/**
 * The stored state of x402 per-read payments (`x402-per-read.ts` decides when to settle and
 * serve), keyed by the digest of a payment's identity: `x402read:lease:<id>`, the insert-once,
 * expiring lease of the one request working on the payment, and `x402read:<id>`, the record that
 * is `settling` before `/settle` is called and `served` once it settled.
 */
import type { StateBackend } from "../../../../state/storage/backend.ts";
import type { DecodedPayment, Requirements } from "./x402-requirements.ts";

export interface ReadRecord {
  state: "settling" | "served";
  /** Digest of the payment's signature: another signature over the same authorization is not this payment. */
  signature: string;
  payment?: DecodedPayment;
  requirements?: Requirements;
  transaction?: string;
}

export interface X402ReadStore {
  /** Takes the payment's lease for `holder` until `expiresAt`; false while another request holds it. */
  lease(id: string, holder: string, expiresAt: number, now: number): Promise<boolean>;
  /** Gives the lease back, only while `holder` still holds it. */
  unlease(id: string, holder: string): Promise<boolean>;
  get(id: string): Promise<ReadRecord | null>;
  /** The record written before `/settle` is called: the payment and the requirements to settle it again. */
  recordSettling(id: string, signature: string, payment: DecodedPayment, requirements: Requirements): Promise<void>;
  recordServed(id: string, signature: string, transaction: string): Promise<void>;
  remove(id: string): Promise<void>;
}

export function createX402ReadStore(backend: StateBackend): X402ReadStore {
  return {
    async lease(id, holder, expiresAt, now) {
      return (await backend.insertOnce(_leaseKey(id), holder, expiresAt, now)).created;
    },
    unlease: (id, holder) => backend.removeOnce(_leaseKey(id), holder),
    get: (id) => backend.records.getItem<ReadRecord>(_recordKey(id)),
    async recordSettling(id, signature, payment, requirements) {
      await backend.records.setItem<ReadRecord>(_recordKey(id), { state: "settling", signature, payment, requirements });
    },
    async recordServed(id, signature, transaction) {
      await backend.records.setItem<ReadRecord>(_recordKey(id), { state: "served", signature, transaction });
    },
    async remove(id) {
      await backend.records.removeItem(_recordKey(id));
    },
  };
}

// --- Internal helpers ---

function _leaseKey(id: string): string {
  return `x402read:lease:${id}`;
}

function _recordKey(id: string): string {
  return `x402read:${id}`;
}
