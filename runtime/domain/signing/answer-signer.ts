/**
 * The runtime's signer, one per app. Prebuilt artifacts carry the build's signatures (read with
 * the manifest); this signs what the runtime makes (dynamic answers, layer selections, a few
 * rewritten bodies) and dates every answer it serves: a prebuilt one is sent with its digest and
 * identity signed again with `created` (`stamp`), so no answer is undated.
 * It also says which public keys /.well-known/jwks.json lists.
 */

import {
  formatIdentity,
  type KnowledgeIdentity,
  type SignatureHeaders,
  type SigningKey,
  signAnswer,
  signHeaders,
} from "../../shared/answer-signature.ts";
import { generateSigningKey, type PublicSigningJwk, publicJwk } from "../../shared/signing-keys.ts";
import type { Artifacts } from "../../state/releases/artifacts.ts";

export interface AnswerSigner {
  readonly kid: string;
  /** True when no SIGNING_KEY was given and the key was made at start (development). */
  readonly ephemeral: boolean;
  /**
   * Signs bytes as sent; `now` in milliseconds becomes the signature's `created`. Without `now`
   * (a variant derived from build bytes, like a layer selection) the signature is the same on
   * every instance holding the key.
   */
  sign(bytes: Uint8Array | string, identity: KnowledgeIdentity, now?: number): SignatureHeaders;
  /** The same over bytes whose `Content-Digest` header was computed before (`contentDigest`). */
  signDigest(digestHeader: string, identity: KnowledgeIdentity, now: number): SignatureHeaders;
  /**
   * A signature made earlier (the build's, or a layer selection's) dated `now`: the same digest and
   * identity signed again with `created`, so every answer says when it was served. Signed at most
   * once a second per signature object (Ed25519 is deterministic and `created` is in seconds, so
   * the one kept is the one every request of that second would have made).
   */
  stamp(signature: SignatureHeaders, now: number): SignatureHeaders;
  /**
   * The published keys: this server's, the previous ones (SIGNING_PREVIOUS_KEYS) and, for a
   * development build, the key that build signed with (a release's key must be one of the others).
   */
  publicKeys(build: Artifacts): PublicSigningJwk[];
}

export function createAnswerSigner(config: { key: SigningKey | null; previous: readonly PublicSigningJwk[] }): AnswerSigner {
  const key = config.key ?? generateSigningKey();
  const own = [publicJwk(key.privateKey), ...config.previous];
  const stamped = new WeakMap<SignatureHeaders, { second: number; headers: SignatureHeaders }>();
  return {
    kid: key.kid,
    ephemeral: config.key === null,
    sign: (bytes, identity, now) => signAnswer(key, bytes, identity, now === undefined ? undefined : Math.floor(now / 1000)),
    signDigest: (digestHeader, identity, now) => signHeaders(key, digestHeader, formatIdentity(identity), Math.floor(now / 1000)),
    stamp(signature, now) {
      const second = Math.floor(now / 1000);
      let hit = stamped.get(signature);
      if (hit?.second !== second) {
        hit = { second, headers: signHeaders(key, signature["content-digest"], signature["knowledge-identity"], second) };
        stamped.set(signature, hit);
      }
      return hit.headers;
    },
    publicKeys(build) {
      const signing = build.manifest.signing;
      const keys = signing?.dev ? [...own, signing.public_key] : own;
      const seen = new Set<string>();
      return keys.filter((k) => !seen.has(k.kid) && (seen.add(k.kid), true));
    },
  };
}

/**
 * The signature an answer is served with, dated `now`: the build's or a selection's signature
 * stamped, else the bytes signed now; null for an answer that is no knowledge (no identity).
 */
export function servedSignature(
  signer: AnswerSigner,
  answer: { bytes: Uint8Array; identity: KnowledgeIdentity | null; signature: SignatureHeaders | null },
  now: number,
): SignatureHeaders | null {
  if (answer.signature) return signer.stamp(answer.signature, now);
  return answer.identity ? signer.sign(answer.bytes, answer.identity, now) : null;
}
