/**
 * Saved checkout answers at rest. A replayed 201 must hand back the keys it issued, yet the store
 * keeps keys only as hashes (storage/keys-store.ts). So a saved answer is sealed with AES-256-GCM under a key
 * derived (HKDF-SHA256) from the secret the client presents to get it back (its Idempotency-Key
 * and payment credential, or the x402 payment signature), which the store never holds: it holds
 * only a SHA-256 digest of it as the lookup id (`digestOf`, a different derivation). A dump of the
 * store opens nothing; only a request presenting the same secret does.
 *
 * The record's own store key is bound in as associated data, so a sealed answer cannot be moved
 * to another slot. A fresh random salt per record keeps two records of one secret unrelated.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export interface SealedAnswer {
  sealed: 1;
  salt: string;
  iv: string;
  tag: string;
  data: string;
}

const INFO = "vkr/sealed-answer/v1";

export function sealAnswer(answer: unknown, secret: string, slot: string): SealedAnswer {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", _key(secret, salt, slot), iv);
  cipher.setAAD(Buffer.from(slot, "utf8"));
  const data = Buffer.concat([cipher.update(JSON.stringify(answer), "utf8"), cipher.final()]);
  return {
    sealed: 1,
    salt: salt.toString("base64"),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
}

/** The answer, or null when `record` is not a sealed answer or `secret` does not open it. */
export function openAnswer<T>(record: unknown, secret: string, slot: string): T | null {
  if (!_isSealed(record)) return null;
  try {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      _key(secret, Buffer.from(record.salt, "base64"), slot),
      Buffer.from(record.iv, "base64"),
    );
    decipher.setAAD(Buffer.from(slot, "utf8"));
    decipher.setAuthTag(Buffer.from(record.tag, "base64"));
    const plain = Buffer.concat([decipher.update(Buffer.from(record.data, "base64")), decipher.final()]);
    return JSON.parse(plain.toString("utf8")) as T;
  } catch {
    // A wrong secret fails the GCM tag check: the presenter is not the one who saved it.
    return null;
  }
}

// --- Internal helpers ---

function _key(secret: string, salt: Buffer, slot: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), salt, `${INFO} ${slot}`, 32));
}

function _isSealed(record: unknown): record is SealedAnswer {
  if (typeof record !== "object" || record === null) return false;
  const r = record as Record<string, unknown>;
  return r.sealed === 1 && [r.salt, r.iv, r.tag, r.data].every((v) => typeof v === "string");
}
