/**
 * Generation and hashing of service keys. Only the SHA-256 digest of a key is stored, and lookup
 * is by digest: what an attacker can time is the digest of a key they chose, which says nothing
 * about any stored key.
 */
import { createHash, randomInt, timingSafeEqual } from "node:crypto";
import { KEY_SECRET_LENGTH, type KeyType, LIVE_KEY_PREFIX, TRIAL_KEY_PREFIX } from "../../shared/schema/keys.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function generateKey(type: KeyType): string {
  let secret = "";
  // randomInt is uniform over [0, 62), so every character carries log2(62) bits without bias.
  for (let i = 0; i < KEY_SECRET_LENGTH; i++) secret += BASE62[randomInt(62)];
  return (type === "membership" ? LIVE_KEY_PREFIX : TRIAL_KEY_PREFIX) + secret;
}

export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function keyIdOf(hash: string): string {
  return hash.slice(0, 12);
}

/** Constant-time equality of two secrets of any length, by comparing their digests. */
export function secretsEqual(a: string, b: string): boolean {
  const da = createHash("sha256").update(a).digest();
  const db = createHash("sha256").update(b).digest();
  return timingSafeEqual(da, db);
}
