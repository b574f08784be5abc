/**
 * The runtime's signer, one per app. Prebuilt artifacts carry the build's signatures (read with
 * the manifest); this signs only what the runtime makes: dynamic answers (evaluate, search, delta
 * pages), layer selections (once per selection, cached with it) and a few rewritten bodies.
 * It also says which public keys /.well-known/jwks.json lists.
 */
import type { Artifacts } from "../storage/artifacts.ts";
import {
  formatIdentity,
  signAnswer,
  signHeaders,
  type KnowledgeIdentity,
  type SignatureHeaders,
  type SigningKey,
} from "./answer-signature.ts";
import { generateSigningKey, publicJwk, type PublicSigningJwk } from "./signing-keys.ts";

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
   * The published keys: this server's, the previous ones (SIGNING_PREVIOUS_KEYS) and, for a
   * development build, the key that build signed with (a release's key must be one of the others).
   */
  publicKeys(build: Artifacts): PublicSigningJwk[];
}

export function createAnswerSigner(config: { key: SigningKey | null; previous: readonly PublicSigningJwk[] }): AnswerSigner {
  const key = config.key ?? generateSigningKey();
  const own = [publicJwk(key.privateKey), ...config.previous];
  return {
    kid: key.kid,
    ephemeral: config.key === null,
    sign: (bytes, identity, now) => signAnswer(key, bytes, identity, now === undefined ? undefined : Math.floor(now / 1000)),
    signDigest: (digestHeader, identity, now) => signHeaders(key, digestHeader, formatIdentity(identity), Math.floor(now / 1000)),
    publicKeys(build) {
      const signing = build.manifest.signing;
      const keys = signing?.dev ? [...own, signing.public_key] : own;
      const seen = new Set<string>();
      return keys.filter((k) => !seen.has(k.kid) && (seen.add(k.kid), true));
    },
  };
}
