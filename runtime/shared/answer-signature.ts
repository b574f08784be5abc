/**
 * The signature every answer carries (RFC 9421 HTTP Message Signatures, Ed25519) over its
 * `Content-Digest` (RFC 9530, sha-256) and its `Knowledge-Identity`: which vertical, node,
 * version, view and build the bytes are. The signature covers header fields only, never derived
 * components such as `@authority` or `@status`, so the build can sign its artifacts once for every
 * deployment, and a response saved to disk verifies later without the request or the server.
 */
import { createHash, type KeyObject, sign } from "node:crypto";
import {
  formatContentDigest,
  formatIdentity,
  type KnowledgeIdentity,
  SIGNATURE_LABEL,
  signatureBase,
  signatureParams,
} from "../../client/http-signature.ts";

// The RFC 9421 parts the verifier shares (client/http-signature.ts), under the names the runtime and build use.
export { formatIdentity, type KnowledgeIdentity, signatureBase, signatureParams } from "../../client/http-signature.ts";

/** A private key with its RFC 7638 thumbprint as `kid`. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

/** The four headers of a signed answer, lowercase, ready to add to a response or to MCP `_meta`. */
export type SignatureHeaders = Readonly<Record<"content-digest" | "knowledge-identity" | "signature-input" | "signature", string>>;

/** @example contentDigest(bytes) // 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:' */
export function contentDigest(bytes: Uint8Array | string): string {
  return formatContentDigest(createHash("sha256").update(bytes).digest("base64"));
}

/** The same header from a hex sha-256 the build already recorded (manifest `files`). */
export function contentDigestFromHex(hex: string): string {
  return formatContentDigest(Buffer.from(hex, "hex").toString("base64"));
}

/** base64 sha-256 of text, for `KnowledgeIdentity.input`. */
export function inputDigest(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}

/** Signs a digest and identity (both already formatted); `created` in seconds for dynamic answers. */
export function signHeaders(key: SigningKey, digestHeader: string, identityHeader: string, created?: number): SignatureHeaders {
  const params = signatureParams(key.kid, created);
  const signature = sign(null, Buffer.from(signatureBase(digestHeader, identityHeader, params)), key.privateKey).toString("base64");
  return _headers(digestHeader, identityHeader, params, signature);
}

/** The headers of a signature made earlier (the build's), from its parts. */
export function assembleHeaders(kid: string, digestHeader: string, identityHeader: string, signature: string): SignatureHeaders {
  return _headers(digestHeader, identityHeader, signatureParams(kid), signature);
}

/** Signs bytes as they will be sent. */
export function signAnswer(key: SigningKey, bytes: Uint8Array | string, identity: KnowledgeIdentity, created?: number): SignatureHeaders {
  return signHeaders(key, contentDigest(bytes), formatIdentity(identity), created);
}

// --- Internal helpers ---

function _headers(digestHeader: string, identityHeader: string, params: string, signature: string): SignatureHeaders {
  return {
    "content-digest": digestHeader,
    "knowledge-identity": identityHeader,
    "signature-input": `${SIGNATURE_LABEL}=${params}`,
    signature: `${SIGNATURE_LABEL}=:${signature}:`,
  };
}
