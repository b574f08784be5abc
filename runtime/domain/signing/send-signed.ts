/**
 * A dynamic JSON answer with its signature: serialised once, and the signature made over exactly
 * the bytes sent. Prebuilt artifacts never come here; they carry the build's signature.
 */
import type { H3Event } from "h3";
import { contentDigest, type KnowledgeIdentity, type SignatureHeaders } from "../../shared/answer-signature.ts";
import { sendBytes } from "../../shared/http/respond.ts";
import type { DomainDeps } from "../domain-deps.ts";

export function sendSignedJson(
  event: H3Event,
  deps: DomainDeps,
  body: unknown,
  identity: KnowledgeIdentity,
  now: number,
  headers: Record<string, string> = {},
): Response {
  const text = JSON.stringify(body);
  return sendBytes(event, 200, text, { "cache-control": "no-store", ...headers, ...deps.shared.signer.sign(text, identity, now) });
}

/**
 * The same for a body object that is served again as it is (a shared evaluation, evaluate-node.ts):
 * serialised and digested once per object, and signed at most once a second per signer. `created`
 * is in seconds and Ed25519 is deterministic, so the signature kept for a second is the one every
 * request of that second would have computed.
 */
export function sendSharedSignedJson(
  event: H3Event,
  deps: DomainDeps,
  body: object,
  identity: KnowledgeIdentity,
  now: number,
  headers: Record<string, string> = {},
): Response {
  let shared = serialised.get(body);
  if (shared === undefined) {
    // Bytes, not a string: sent again, a string would be encoded again on every request.
    const bytes = Buffer.from(JSON.stringify(body));
    serialised.set(body, (shared = { bytes, digest: contentDigest(bytes), signer: null, second: Number.NaN, signature: null }));
  }
  const second = Math.floor(now / 1000);
  const signer = deps.shared.signer;
  if (shared.signature === null || shared.second !== second || shared.signer !== signer) {
    shared.signature = signer.signDigest(shared.digest, identity, now);
    shared.second = second;
    shared.signer = signer;
  }
  return sendBytes(event, 200, shared.bytes, { "cache-control": "no-store", ...headers, ...shared.signature });
}

// --- Internal helpers ---

interface SharedAnswer {
  bytes: Uint8Array;
  digest: string;
  signer: object | null;
  second: number;
  signature: SignatureHeaders | null;
}

/** Per body object; an entry lives as long as whoever shares the body keeps it. */
const serialised = new WeakMap<object, SharedAnswer>();
