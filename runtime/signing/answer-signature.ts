/**
 * The signature every answer carries (RFC 9421 HTTP Message Signatures, Ed25519) over its
 * `Content-Digest` (RFC 9530, sha-256) and its `Knowledge-Identity`: which vertical, node,
 * version, view and build the bytes are. The signature covers header fields only, never derived
 * components such as `@authority` or `@status`, so the build can sign its artifacts once for every
 * deployment, and a response saved to disk verifies later without the request or the server.
 */
import { createHash, sign, type KeyObject } from "node:crypto";

/** What an answer is, as the signed `Knowledge-Identity` header states it. */
export interface KnowledgeIdentity {
  vertical: string;
  /** Absent for an index, a search or a delta page. */
  node?: string;
  version?: string;
  /** full, lean, locked, locked.lean, index, index.lean, evaluation, search, delta. */
  view: string;
  /** A layer selection (`layers=`), joined with `+` in canonical order. */
  layers?: string;
  /**
   * sha-256 of the RFC 8785 canonical JSON of what a dynamic answer was computed from (the facts
   * of an evaluation, the query of a search or a delta page), base64.
   */
  input?: string;
  build: string;
}

/** A private key with its RFC 7638 thumbprint as `kid`. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
}

/** The four headers of a signed answer, lowercase, ready to add to a response or to MCP `_meta`. */
export type SignatureHeaders = Readonly<Record<"content-digest" | "knowledge-identity" | "signature-input" | "signature", string>>;

/** The signature's label in `Signature-Input` / `Signature`. */
export const SIGNATURE_LABEL = "vkr";
/** `tag` parameter (RFC 9421 §2.3): says what the signature is for, so it is never taken for another. */
export const SIGNATURE_TAG = "vkr-answer";
export const COVERED_COMPONENTS = ["content-digest", "knowledge-identity"] as const;

/** @example contentDigest(bytes) // 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:' */
export function contentDigest(bytes: Uint8Array | string): string {
  return `sha-256=:${createHash("sha256").update(bytes).digest("base64")}:`;
}

/** The same header from a hex sha-256 the build already recorded (manifest `files`). */
export function contentDigestFromHex(hex: string): string {
  return `sha-256=:${Buffer.from(hex, "hex").toString("base64")}:`;
}

/** base64 sha-256 of text, for `KnowledgeIdentity.input`. */
export function inputDigest(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}

/**
 * The identity as a structured-field dictionary (RFC 8941), members in a fixed order.
 * @example formatIdentity({ vertical: "travel", node: "trv-a", version: "1f2e", view: "lean", build: "9c0d" })
 *   // 'vertical="travel", node="trv-a", version="1f2e", view="lean", build="9c0d"'
 */
export function formatIdentity(identity: KnowledgeIdentity): string {
  const parts = [`vertical=${_sfString(identity.vertical)}`];
  if (identity.node !== undefined) parts.push(`node=${_sfString(identity.node)}`);
  if (identity.version !== undefined) parts.push(`version=${_sfString(identity.version)}`);
  parts.push(`view=${_sfString(identity.view)}`);
  if (identity.layers !== undefined) parts.push(`layers=${_sfString(identity.layers)}`);
  if (identity.input !== undefined) parts.push(`input=:${identity.input}:`);
  parts.push(`build=${_sfString(identity.build)}`);
  return parts.join(", ");
}

/**
 * `Signature-Input` member value: covered components and parameters. `created` (seconds) is set on
 * dynamic answers; a build's signature has none, so the same build always carries the same bytes.
 */
export function signatureParams(kid: string, created?: number): string {
  const components = `(${COVERED_COMPONENTS.map((c) => `"${c}"`).join(" ")})`;
  return `${components}${created === undefined ? "" : `;created=${created}`};keyid=${_sfString(kid)};alg="ed25519";tag="${SIGNATURE_TAG}"`;
}

/** The signature base of RFC 9421 §2.5 for our covered components. */
export function signatureBase(digestHeader: string, identityHeader: string, params: string): string {
  return `"content-digest": ${digestHeader}\n"knowledge-identity": ${identityHeader}\n"@signature-params": ${params}`;
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

/** sf-string: printable ASCII, `"` and `\` escaped. Ids, versions and slugs are ASCII by schema; anything else is a bug. */
function _sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new Error(`not a structured-field string: ${JSON.stringify(value.slice(0, 60))}`);
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
