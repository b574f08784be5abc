/**
 * Ed25519 keys for answer signatures: read from SIGNING_KEY (a private JWK or a PKCS#8 PEM),
 * generated for development, and published as JWKs whose `kid` is the RFC 7638 thumbprint, so a
 * key names itself and the same key always has the same id wherever it is loaded.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import type { SigningKey } from "./answer-signature.ts";

/** A public key as /.well-known/jwks.json lists it. */
export interface PublicSigningJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  use: "sig";
  alg: "EdDSA";
}

/** A private key from its text: a JWK (JSON with `d`) or a PEM (PKCS#8). Throws on anything else. */
export function parseSigningKey(text: string): SigningKey {
  const trimmed = text.trim();
  let privateKey: KeyObject;
  try {
    privateKey = trimmed.startsWith("{")
      ? createPrivateKey({ key: JSON.parse(trimmed) as import("node:crypto").JsonWebKey, format: "jwk" })
      : createPrivateKey(trimmed);
  } catch (error) {
    throw new Error(`not a private key (a JWK with "d" or a PKCS#8 PEM): ${error instanceof Error ? error.message : String(error)}`);
  }
  if (privateKey.asymmetricKeyType !== "ed25519")
    throw new Error(`an Ed25519 key is needed, not ${privateKey.asymmetricKeyType ?? "a symmetric key"}`);
  return { kid: publicJwk(privateKey).kid, privateKey };
}

/**
 * Public keys from their text: a JWK Set, an array of JWKs, one JWK (private members are ignored)
 * or PEM blocks (public or private). Used for SIGNING_PREVIOUS_KEYS.
 */
export function parsePublicKeys(text: string): PublicSigningJwk[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  let sources: Array<import("node:crypto").JsonWebKey | string>;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const parsed = JSON.parse(trimmed) as unknown;
    const list = Array.isArray(parsed)
      ? parsed
      : Array.isArray((parsed as { keys?: unknown }).keys)
        ? (parsed as { keys: unknown[] }).keys
        : [parsed];
    sources = list.map((jwk) => {
      // Only the public members: a private JWK pasted here must not make its private part travel further.
      const { kty, crv, x } = jwk as Record<string, string>;
      return { kty, crv, x };
    });
  } else {
    sources = trimmed.match(/-----BEGIN [^-]+-----[\s\S]+?-----END [^-]+-----/g) ?? [];
    if (sources.length === 0) throw new Error("neither JSON (a JWK Set or JWKs) nor PEM blocks");
  }
  return sources.map((source) => {
    const key = typeof source === "string" ? createPublicKey(source) : createPublicKey({ key: source, format: "jwk" });
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`an Ed25519 key is needed, not ${key.asymmetricKeyType}`);
    return publicJwk(key);
  });
}

/** A fresh key (development builds and servers without SIGNING_KEY). */
export function generateSigningKey(): SigningKey {
  const { privateKey } = generateKeyPairSync("ed25519");
  return { kid: publicJwk(privateKey).kid, privateKey };
}

/** The private key as a JWK, to keep a development key between builds. */
export function exportPrivateJwk(key: SigningKey): string {
  return JSON.stringify(key.privateKey.export({ format: "jwk" }));
}

/** The public JWK of a key (private or public), with its thumbprint as `kid`. */
export function publicJwk(key: KeyObject): PublicSigningJwk {
  const { x } = (key.type === "public" ? key : createPublicKey(key)).export({ format: "jwk" }) as { x: string };
  return { kty: "OKP", crv: "Ed25519", x, kid: jwkThumbprint(x), use: "sig", alg: "EdDSA" };
}

/**
 * RFC 7638 thumbprint of an Ed25519 key: sha-256 of its required members in lexicographic order.
 * Computed here rather than with jose's `calculateJwkThumbprint` because that one is async and key
 * loading is not (a test checks both agree).
 */
export function jwkThumbprint(x: string): string {
  return createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
}
